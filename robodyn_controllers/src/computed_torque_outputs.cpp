// ComputedTorqueController, what it publishes: ~/reference and ~/commands from the cycle
// ring on a thread of their own, and /diagnostics filled in place.
#include "robodyn_controllers/computed_torque_controller.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "computed_torque_internal.hpp"

namespace robodyn_controllers
{
// ~/reference (position, velocity: what is tracked; effort: the command) and ~/commands:
// this cycle's record into the ring (the publishing thread sends it).
void ComputedTorqueController::publish(const rclcpp::Time & time) noexcept
{
  if (cycles_ % static_cast<unsigned long>(params_.publish_every) != 0) {return;}
  double * record = ring_.begin(time.nanoseconds());
  if (record == nullptr) {return;}  // the ring is full: counted, reported on /diagnostics
  const bool tracking = mode_ == Mode::ACTIVE;
  for (std::size_t i = 0; i < n_; ++i) {
    record[i] = tracking ? q_ref_[i] : hold_q_[i];
    record[n_ + i] = tracking ? qd_ref_[i] : 0.0;
    record[2 * n_ + i] = out_[i];
  }
  if (observe_) {std::copy(observer_.residual(), observer_.residual() + n_, record + 3 * n_);}
  if (wrench_on_) {std::copy(q_.begin(), q_.end(), record + 4 * n_);}
  ring_.commit();
}

void ComputedTorqueController::start_publishing()
{
  stop_publishing();
  publishing_.store(true);
  publisher_thread_ = std::thread([this] {
      while (publishing_.load()) {
        std::this_thread::sleep_for(PUBLISH_PERIOD);
        publish_records();
      }
      publish_records();  // what the last cycles left
    });
}

void ComputedTorqueController::stop_publishing()
{
  publishing_.store(false);
  if (publisher_thread_.joinable()) {publisher_thread_.join();}
}

// The publishing thread: every waiting record as one JointState and one command message.
void ComputedTorqueController::publish_records()
{
  ring_.drain([this](std::int64_t stamp_ns, const double * record) {
      reference_msg_.header.stamp = rclcpp::Time(stamp_ns);
      std::copy(record, record + n_, reference_msg_.position.begin());
      std::copy(record + n_, record + 2 * n_, reference_msg_.velocity.begin());
      std::copy(record + 2 * n_, record + 3 * n_, reference_msg_.effort.begin());
      std::copy(record + 2 * n_, record + 3 * n_, commands_msg_.data.begin());
      // A write DDS refuses throws (RCLError): never out of this thread, which would end
      // the whole controller_manager (and a Gazebo server with it); the record is lost.
      try {
        reference_topic_->publish(reference_msg_);
        commands_topic_->publish(commands_msg_);
        if (observe_) {
          external_msg_.header.stamp = reference_msg_.header.stamp;
          std::copy(record + 3 * n_, record + 4 * n_, external_msg_.effort.begin());
          external_topic_->publish(external_msg_);
        }
        if (wrench_on_) {publish_wrench(record + 4 * n_, record + 3 * n_);}
      } catch (const std::exception &) {
        publish_failures_.fetch_add(1);
      }
    });
}

// ~/tool_wrench of a record's position and estimate, on the publishing thread: nothing when
// the answer is not finite (a non-finite estimate; nothing non-finite on the wire).
void ComputedTorqueController::publish_wrench(const double * q, const double * residual)
{
  double w[6];
  wrench_.estimate(dynamics_, q, residual, w);
  if (!std::all_of(w, w + 6, [](double v) {return std::isfinite(v);})) {return;}
  wrench_msg_.header.stamp = external_msg_.header.stamp;
  auto & f = wrench_msg_.wrench.force;
  auto & m = wrench_msg_.wrench.torque;
  f.x = w[0]; f.y = w[1]; f.z = w[2]; m.x = w[3]; m.y = w[4]; m.z = w[5];
  wrench_topic_->publish(wrench_msg_);
}

bool ComputedTorqueController::publish_diagnostics(const rclcpp::Time & time) noexcept
{
  using diagnostic_msgs::msg::DiagnosticStatus;
  diagnostics_msg_.header.stamp = time;
  auto & status = diagnostics_msg_.status[0];
  status.level = mode_ == Mode::SAFE ? DiagnosticStatus::ERROR :
    ((mode_ == Mode::HOLD && std::strcmp(event_, "none") != 0) || in_contact_ ?
    DiagnosticStatus::WARN : DiagnosticStatus::OK);
  char text[2 * TEXT];
  std::snprintf(text, sizeof(text), "%s: %s", mode_name(mode_), reason_);
  status.message.assign(text, std::min(std::strlen(text), 2 * TEXT - 1));
  auto & v = status.values;
  assign(v[0].value, mode_name(mode_));
  assign(v[1].value, reason_);
  assign(v[2].value, event_);
  assign(v[3].value, params_.mode.c_str());
  assign(v[4].value, mode_ == Mode::SAFE && !state_trusted_ ?
    (compliant_ ? "gravity + damping (compliant: the arm yields to the contact)" :
    "gravity + damping") : "position hold");
  assign(v[5].value, is_in_chained_mode() ? "true" : "false");
  const unsigned long numbers[] = {faults_, counts_.clamped, counts_.rate_limited, cycles_,
    static_cast<unsigned long>(ring_.dropped()) + publish_failures_.load()};
  for (std::size_t k = 0; k < 5; ++k) {
    std::snprintf(text, sizeof(text), "%lu", numbers[k]);
    assign(v[6 + k].value, text);
  }
  if (observe_) {
    int used = 0;
    const double * r = observer_.residual();
    for (std::size_t i = 0; i < n_ && used >= 0 && static_cast<std::size_t>(used) < TEXT;
      ++i)
    {
      used += std::snprintf(text + used, sizeof(text) - used, i ? " %.3f" : "%.3f", r[i]);
    }
    assign(v[11].value, text);
  } else {
    assign(v[11].value, "off");
  }
  assign(v[12].value, collision_buffer_);
  std::snprintf(text, sizeof(text), "%lu", collisions_);
  assign(v[13].value, text);
  assign(v[14].value, hold_buffer_);
  return diagnostics_publisher_->try_publish(diagnostics_msg_);
}

}  // namespace robodyn_controllers

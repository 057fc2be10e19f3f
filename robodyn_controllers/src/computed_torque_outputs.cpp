// ComputedTorqueController, what it publishes: ~/reference and ~/commands from the cycle
// ring, and /diagnostics from the newest status snapshot, on a thread of their own.
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
#include "robodyn_controllers/pose_follower.hpp"
#include "robodyn_controllers/task_space.hpp"

namespace robodyn_controllers
{
// ~/reference (position, velocity: what is tracked; effort: the command) and ~/commands:
// this cycle's record into the ring (the publishing thread sends it).
void ComputedTorqueController::publish(const rclcpp::Time & time) noexcept
{
  if (core_.cycles() % static_cast<unsigned long>(params_.publish_every) != 0) {return;}
  double * record = ring_.begin(time.nanoseconds());
  if (record == nullptr) {return;}  // the ring is full: counted, reported on /diagnostics
  const bool tracking = core_.tracking();
  const auto & q = core_.tracked_position();
  const auto & qd = core_.reference_velocity();
  const double * out = core_.out();
  for (std::size_t i = 0; i < n_; ++i) {
    record[i] = q[i];
    record[n_ + i] = tracking ? qd[i] : 0.0;
    record[2 * n_ + i] = out[i];
  }
  const double * residual = core_.residual();
  if (residual != nullptr) {std::copy(residual, residual + n_, record + 3 * n_);}
  if (wrench_on_) {std::copy(core_.q(), core_.q() + n_, record + 4 * n_);}
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
        publish_status();
      }
      publish_records();  // what the last cycles left
      publish_status();
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
        if (core_.observing()) {
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

void ComputedTorqueController::snapshot_diagnostics(const rclcpp::Time & time) noexcept
{
  DiagnosticsSnapshot & s = diagnostics_slot_.back();
  s.stamp_ns = time.nanoseconds();
  s.mode = core_.mode();
  s.event = core_.event();
  s.trusted = core_.trusted();
  s.compliant = core_.compliant();
  s.chained = is_in_chained_mode();
  s.in_contact = core_.in_contact();
  s.numbers = {core_.faults(), core_.counts().clamped, core_.counts().rate_limited,
    core_.cycles(), static_cast<unsigned long>(ring_.dropped())};
  s.collisions = core_.collisions();
  std::snprintf(s.reason.data(), s.reason.size(), "%s", core_.reason());
  std::snprintf(s.collision.data(), s.collision.size(), "%s", core_.collision_text());
  std::snprintf(s.hold.data(), s.hold.size(), "%s", core_.hold_text());
  const double * residual = core_.residual();
  if (residual != nullptr) {std::copy(residual, residual + n_, s.residual.begin());}
  const double * pi = core_.estimate();
  if (pi != nullptr) {std::copy(pi, pi + 10, s.payload.begin());}
  const double * j = law_->tip_jacobian();
  if (j != nullptr && !s.jacobian.empty()) {std::copy(j, j + 6 * n_, s.jacobian.begin());}
  s.wrench_applied = wrenches_.applied(s.wrench);
  diagnostics_slot_.commit();
}

// The adaptive law's estimate into its three values, as the node reports it
// (robodyn_ros.control.core_report): pi, the mass [kg], the centre of mass [m].
void ComputedTorqueController::publish_payload(
  const std::array<double, 10> & pi, diagnostic_msgs::msg::KeyValue * v)
{
  char text[TEXT];
  int used = 0;
  for (std::size_t k = 0; k < 10 && used >= 0 && static_cast<std::size_t>(used) < TEXT; ++k) {
    used += std::snprintf(text + used, sizeof(text) - used, k ? " %.6g" : "%.6g", pi[k]);
  }
  assign(v[0].value, text);
  std::snprintf(text, sizeof(text), "%.4f", pi[0]);
  assign(v[1].value, text);
  std::snprintf(text, sizeof(text), "%.4f %.4f %.4f", pi[1] / pi[0], pi[2] / pi[0],
    pi[3] / pi[0]);
  assign(v[2].value, text);
}

// ~/payload_estimate: pi as geometry_msgs/Inertia (the mass [kg], its centre [m] and the
// inertia about it [kg m^2], I_c = I_O - (|h|^2 1 - h h^T) / m with h = m c, in the tip
// frame), on the publishing thread; nothing while the mass is not positive or an entry
// is not finite (nothing non-finite on the wire).
void ComputedTorqueController::publish_estimate(
  std::int64_t stamp_ns, const std::array<double, 10> & pi)
{
  const double m = pi[0];
  if (!(m > 0.0) || !std::all_of(pi.begin(), pi.end(), [](double v) {return std::isfinite(v);})) {
    return;
  }
  const double hx = pi[1], hy = pi[2], hz = pi[3];
  auto & i = estimate_msg_.inertia;
  estimate_msg_.header.stamp = rclcpp::Time(stamp_ns);
  i.m = m;
  i.com.x = hx / m; i.com.y = hy / m; i.com.z = hz / m;
  i.ixx = pi[4] - (hy * hy + hz * hz) / m;
  i.ixy = pi[5] + hx * hy / m;
  i.ixz = pi[6] + hx * hz / m;
  i.iyy = pi[7] - (hx * hx + hz * hz) / m;
  i.iyz = pi[8] + hy * hz / m;
  i.izz = pi[9] - (hx * hx + hy * hy) / m;
  estimate_topic_->publish(estimate_msg_);
}

// The newest snapshot as one DiagnosticStatus, on the publishing thread.
void ComputedTorqueController::publish_status()
{
  using diagnostic_msgs::msg::DiagnosticStatus;
  const DiagnosticsSnapshot * s = diagnostics_slot_.take();
  if (s == nullptr) {return;}
  diagnostics_msg_.header.stamp = rclcpp::Time(s->stamp_ns);
  auto & status = diagnostics_msg_.status[0];
  status.level = s->mode == Mode::SAFE ? DiagnosticStatus::ERROR :
    ((s->mode == Mode::HOLD && std::strcmp(s->event, "none") != 0) || s->in_contact ?
    DiagnosticStatus::WARN : DiagnosticStatus::OK);
  char text[3 * TEXT];  // the mode and a reason of up to 511 characters; cut to 2 TEXT
  std::snprintf(text, sizeof(text), "%s: %s", mode_name(s->mode), s->reason.data());
  status.message.assign(text, std::min(std::strlen(text), 2 * TEXT - 1));
  auto & v = status.values;
  assign(v[0].value, mode_name(s->mode));
  assign(v[1].value, s->reason.data());
  assign(v[2].value, s->event);
  assign(v[3].value, params_.mode.c_str());
  assign(v[4].value, s->mode == Mode::SAFE && !s->trusted ?
    (s->compliant ? "gravity + damping (compliant: the arm yields to the contact)" :
    "gravity + damping") : "position hold");
  assign(v[5].value, s->chained ? "true" : "false");
  for (std::size_t k = 0; k < 5; ++k) {
    const unsigned long number = s->numbers[k] + (k == 4 ? publish_failures_.load() : 0);
    std::snprintf(text, sizeof(text), "%lu", number);
    assign(v[6 + k].value, text);
  }
  if (s->residual.empty()) {
    assign(v[11].value, "off");
  } else {
    int used = 0;
    for (std::size_t i = 0; i < s->residual.size() && used >= 0 &&
      static_cast<std::size_t>(used) < TEXT; ++i)
    {
      used += std::snprintf(text + used, sizeof(text) - used, i ? " %.3f" : "%.3f",
        s->residual[i]);
    }
    assign(v[11].value, text);
  }
  assign(v[12].value, s->collision.data());
  std::snprintf(text, sizeof(text), "%lu", s->collisions);
  assign(v[13].value, text);
  assign(v[14].value, s->hold.data());
  assign(v[15].value, targets_.status());
  assign(v[16].value, targets_.singularity());
  manipulability_text(s->jacobian.empty() ? nullptr : s->jacobian.data(), n_, text,
    sizeof(text));
  assign(v[17].value, text);
  assign(v[18].value, wrenches_.status());
  if (s->wrench_applied) {
    const auto & w = s->wrench;
    std::snprintf(text, sizeof(text), "%.3f %.3f %.3f %.3f %.3f %.3f", w[0], w[1], w[2], w[3],
      w[4], w[5]);
  } else {
    std::snprintf(text, sizeof(text), "none");
  }
  assign(v[19].value, text);
  if (v.size() == KEY_COUNT) {publish_payload(s->payload, v.data() + KEY_COUNT - PAYLOAD_KEYS);}
  try {  // as publish_records: nothing out of this thread
    if (estimate_topic_) {publish_estimate(s->stamp_ns, s->payload);}
    diagnostics_topic_->publish(diagnostics_msg_);
  } catch (const std::exception &) {
    publish_failures_.fetch_add(1);
  }
}

}  // namespace robodyn_controllers

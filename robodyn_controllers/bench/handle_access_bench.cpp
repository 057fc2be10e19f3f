// What the controller's update() spends in ros2_control's handles: the 77 accesses of one
// cycle of a 7-joint chain (21 state reads; 7 + 21 reference reads and 21 reference
// consumptions; 7 effort writes), each through hardware_interface's loaned or exported
// handle (a shared-mutex try-lock), timed per cycle with steady_clock as controller_manager
// times update(). An optional buffer written between cycles evicts the caches, as the
// hardware's read/write and the other controllers of a cycle do.
//
//   handle_access_bench [SWEEP_MB] [CYCLES]     prints median and p99 per cycle [us]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "hardware_interface/handle.hpp"
#include "hardware_interface/loaned_command_interface.hpp"
#include "hardware_interface/loaned_state_interface.hpp"

namespace
{
constexpr int kJoints = 7;

double percentile(std::vector<double> & values, double p)
{
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}
}  // namespace

int main(int argc, char ** argv)
{
  const std::size_t sweep_mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 0;
  const int cycles = argc > 2 ? std::atoi(argv[2]) : 20000;
  if (cycles < 100 || sweep_mb > 1024) {
    std::fprintf(stderr, "usage: handle_access_bench [SWEEP_MB 0-1024] [CYCLES >= 100]\n");
    return 2;
  }
  std::vector<double> storage(3 * kJoints + 3 * kJoints + kJoints, 0.5);
  // The handles themselves live here, as in ros2_control's resource manager: a loaned
  // interface only refers to its handle.
  std::vector<hardware_interface::StateInterface::SharedPtr> state_handles;
  std::vector<hardware_interface::CommandInterface::SharedPtr> effort_handles;
  std::vector<hardware_interface::LoanedStateInterface> states;
  std::vector<hardware_interface::CommandInterface::SharedPtr> references;
  std::vector<hardware_interface::LoanedCommandInterface> efforts;
  states.reserve(3 * kJoints);
  efforts.reserve(kJoints);
  std::size_t k = 0;
  for (int j = 0; j < kJoints; ++j) {
    for (const char * name : {"position", "velocity", "effort"}) {
      state_handles.push_back(std::make_shared<hardware_interface::StateInterface>(
        "joint" + std::to_string(j), name, &storage[k++]));
      states.emplace_back(state_handles.back());
    }
  }
  for (int j = 0; j < kJoints; ++j) {
    for (const char * name : {"position", "velocity", "acceleration"}) {
      references.push_back(std::make_shared<hardware_interface::CommandInterface>(
        "robodyn_controller/joint" + std::to_string(j), name, &storage[k++]));
    }
  }
  for (int j = 0; j < kJoints; ++j) {
    effort_handles.push_back(std::make_shared<hardware_interface::CommandInterface>(
      "joint" + std::to_string(j), "effort", &storage[k++]));
    efforts.emplace_back(effort_handles.back());
  }
  std::vector<double> sweep(sweep_mb * 131072 + 1, 1.0);
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(cycles));
  double sink = 0.0;
  for (int cycle = 0; cycle < cycles + 100; ++cycle) {
    for (std::size_t i = 0; i + 1 < sweep.size(); i += 8) {sweep[i] += 1.0;}
    for (auto & r : references) {(void)r->set_value(0.25);}  // the chained JTC's write
    const auto start = std::chrono::steady_clock::now();
    for (auto & s : states) {sink += s.get_optional().value_or(0.0);}
    for (int j = 0; j < kJoints; ++j) {sink += references[3 * j]->get_optional().value_or(0.0);}
    for (auto & r : references) {
      sink += r->get_optional().value_or(0.0);
      (void)r->set_value(0.0);
    }
    for (auto & e : efforts) {(void)e.set_value(sink * 1e-12);}
    const auto stop = std::chrono::steady_clock::now();
    if (cycle >= 100) {
      times.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    }
  }
  std::printf("77 handle accesses per cycle, %zu MB written between cycles, %d cycles: "
              "median %.2f us, p99 %.2f us%s\n", sweep_mb, cycles, percentile(times, 0.5),
              percentile(times, 0.99), sink + sweep[0] < 0.0 ? " " : "");
  return 0;
}

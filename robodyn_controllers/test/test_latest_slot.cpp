// LatestSlot (latest_slot.hpp): what the diagnostics of the real-time loop go through to
// the publishing thread. One writer and one reader on two threads: the reader never sees a
// value half written, never goes back in time, and gets the last value committed.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>

#include "robodyn_controllers/latest_slot.hpp"

using robodyn_controllers::LatestSlot;

namespace
{
struct Value  // every element equal: a torn read mixes two values
{
  std::array<long, 64> v{};
};
}  // namespace

TEST(LatestSlot, NothingBeforeTheFirstCommitThenTheNewest)
{
  LatestSlot<Value> slot;
  slot.configure(Value{});
  EXPECT_EQ(slot.take(), nullptr);
  for (long k = 1; k <= 3; ++k) {
    slot.back().v.fill(k);
    slot.commit();
  }
  const Value * got = slot.take();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->v[0], 3);  // the newest wins
  EXPECT_EQ(slot.take(), nullptr);  // taken once
}

TEST(LatestSlot, AReaderOnAnotherThreadSeesWholeValuesInOrder)
{
  constexpr long LAST = 200000;
  LatestSlot<Value> slot;
  slot.configure(Value{});
  std::atomic<bool> done{false};
  std::atomic<long> taken{0};
  std::thread writer([&] {
      for (long k = 1; k <= LAST; ++k) {
        slot.back().v.fill(k);
        slot.commit();
        if (k == LAST / 2) {  // halfway, until the reader has taken a value (at most 5 s):
          // on a loaded machine the writer can otherwise finish before the reader runs
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (taken.load() == 0 && std::chrono::steady_clock::now() < until) {
            std::this_thread::yield();
          }
        }
      }
      done.store(true);
    });
  long seen = 0, takes = 0;
  bool torn = false, backwards = false;
  for (bool finished = false; !finished; ) {
    finished = done.load();  // one more take after the writer ended: its last value
    if (const Value * got = slot.take()) {
      taken.store(++takes);
      for (long x : got->v) {torn = torn || x != got->v[0];}
      backwards = backwards || got->v[0] < seen;
      seen = got->v[0];
    }
  }
  writer.join();
  EXPECT_FALSE(torn);
  EXPECT_FALSE(backwards);
  EXPECT_EQ(seen, LAST);
  EXPECT_GT(takes, 1);
}

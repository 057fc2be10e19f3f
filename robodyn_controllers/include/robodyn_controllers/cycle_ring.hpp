// Per-cycle records handed from the real-time loop to a publishing thread without a
// system call: a single-producer single-consumer ring of fixed-size records.
//
// A realtime_tools::RealtimePublisher wakes its thread on every message (a futex call:
// about 3 us per message on the machines measured); here update() only copies numbers and
// moves an atomic index, and the consumer drains the ring on its own period.
#ifndef ROBODYN_CONTROLLERS__CYCLE_RING_HPP_
#define ROBODYN_CONTROLLERS__CYCLE_RING_HPP_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace robodyn_controllers
{

class CycleRing
{
public:
  // `capacity` records of a stamp [ns] and `width` doubles each (allocates: not real-time).
  void configure(std::size_t capacity, std::size_t width)
  {
    capacity_ = std::max<std::size_t>(capacity, 1);
    width_ = width;
    stamps_.assign(capacity_, 0);
    values_.assign(capacity_ * width_, 0.0);
    head_.store(0);
    tail_.store(0);
    dropped_.store(0);
  }

  // Producer (real-time): a record, or a count of one dropped when the ring is full.
  // Returns where to write the record's `width` values, nullptr when full; commit() it.
  double * begin(std::int64_t stamp_ns) noexcept
  {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= capacity_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    stamps_[head % capacity_] = stamp_ns;
    return &values_[(head % capacity_) * width_];
  }

  void commit() noexcept {head_.fetch_add(1, std::memory_order_release);}

  // Consumer: calls f(stamp_ns, values) for each waiting record, oldest first.
  template<class F>
  std::size_t drain(F && f)
  {
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    std::size_t count = 0;
    for (; tail != head; ++tail, ++count) {
      f(stamps_[tail % capacity_], &values_[(tail % capacity_) * width_]);
    }
    tail_.store(tail, std::memory_order_release);
    return count;
  }

  std::uint64_t dropped() const noexcept {return dropped_.load(std::memory_order_relaxed);}

private:
  std::size_t capacity_ = 1, width_ = 0;
  std::vector<std::int64_t> stamps_;
  std::vector<double> values_;
  std::atomic<std::uint64_t> head_{0}, tail_{0}, dropped_{0};
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__CYCLE_RING_HPP_

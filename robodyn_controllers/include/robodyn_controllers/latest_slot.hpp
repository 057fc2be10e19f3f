// The newest value from one real-time writer to one reader on another thread, without a
// lock or a system call on either side: a triple buffer. The writer fills back() and
// commits it; the reader takes the newest committed value, if one came since its last
// take. A value the reader did not take before the next commit is replaced (the newest
// wins): what a status needs, unlike the records of CycleRing, which are all kept.
#ifndef ROBODYN_CONTROLLERS__LATEST_SLOT_HPP_
#define ROBODYN_CONTROLLERS__LATEST_SLOT_HPP_

#include <array>
#include <atomic>

namespace robodyn_controllers
{

template<class T>
class LatestSlot
{
public:
  // Every buffer a copy of `prototype` (sizes its containers: not real-time), nothing
  // committed.
  void configure(const T & prototype)
  {
    buffers_.fill(prototype);
    back_ = 0;
    front_ = 2;
    middle_.store(1, std::memory_order_relaxed);
  }

  // The writer's buffer: fill it, then commit().
  T & back() noexcept {return buffers_[back_];}

  // Hand back() to the reader as the newest value; the writer gets another buffer.
  void commit() noexcept
  {
    back_ = middle_.exchange(back_ | FRESH, std::memory_order_acq_rel) & INDEX;
  }

  // The newest committed value not taken yet, or nullptr; valid until the next take().
  const T * take() noexcept
  {
    if (!(middle_.load(std::memory_order_acquire) & FRESH)) {return nullptr;}
    front_ = middle_.exchange(front_, std::memory_order_acq_rel) & INDEX;
    return &buffers_[front_];
  }

private:
  static constexpr unsigned INDEX = 3, FRESH = 4;
  std::array<T, 3> buffers_{};
  unsigned back_ = 0, front_ = 2;  // each side's own buffer
  std::atomic<unsigned> middle_{1};  // the one between them, and whether it is new
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__LATEST_SLOT_HPP_

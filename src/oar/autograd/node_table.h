// The backward engine's per-pass state of each grad node, found by the node's address.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include "oar/core/small_vector.h"

namespace oar {

class GradNodeBase;

// Note [The engine's node table]
// One backward pass looks a node's state up several times: when the walk reaches it,
// when its in-degree is counted, and on every edge a gradient is handed along. With
// std::unordered_map each lookup divided by a prime bucket count, and each state and
// the bucket array were allocations of their own. Here the index is open addressing
// over a power-of-two table (a multiply and a shift per lookup, at most half full),
// and the states are built in place, in chunks that never move: a reference to one
// stays valid while others are added. A small graph's index and states sit inside
// the table itself, so grad() on a few ops allocates nothing here.
template <typename State>
class NodeTable {
 public:
  NodeTable() { slots_.resize(kInlineSlots); }
  ~NodeTable() {
    for (const Slot& s : slots_) {
      if (s.node != nullptr) s.state->~State();
    }
  }
  NodeTable(const NodeTable&) = delete;
  NodeTable& operator=(const NodeTable&) = delete;

  // Room for n states in all, without a rehash or a new chunk on the way.
  void Reserve(size_t n) {
    if (2 * n > slots_.size()) Rehash(std::bit_ceil(2 * n));
    if (n > size_ && chunk_size_ - used_ < n - size_) NewChunk(n - size_);
  }

  State* Find(const GradNodeBase* node) const { return slots_[Probe(node)].state; }

  // The node's state, default-constructed on first sight (second: true then).
  std::pair<State*, bool> FindOrAdd(const GradNodeBase* node) {
    size_t i = Probe(node);
    if (slots_[i].node == node) return {slots_[i].state, false};
    if (2 * (size_ + 1) > slots_.size()) {
      Rehash(2 * slots_.size());
      i = Probe(node);
    }
    if (used_ == chunk_size_) NewChunk(2 * chunk_size_);
    State* state = ::new (&chunk_[used_++]) State();
    slots_[i] = Slot{node, state};
    ++size_;
    return {state, true};
  }

  size_t size() const { return size_; }

 private:
  static constexpr size_t kInlineSlots = 16;
  static constexpr size_t kInlineStates = kInlineSlots / 2;

  struct Slot {
    const GradNodeBase* node = nullptr;
    State* state = nullptr;
  };
  struct alignas(State) Cell {
    std::byte bytes[sizeof(State)];
  };

  // The slot holding node, or the empty one where it would go. Fibonacci hashing: the
  // product's high bits depend on every bit of the address.
  size_t Probe(const GradNodeBase* node) const {
    size_t i =
        static_cast<size_t>((reinterpret_cast<uintptr_t>(node) * 0x9E3779B97F4A7C15ull) >> shift_);
    while (slots_[i].node != node && slots_[i].node != nullptr) i = (i + 1) & mask_;
    return i;
  }

  void Rehash(size_t capacity) {
    SmallVector<Slot, kInlineSlots> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    for (const Slot& s : old) {
      if (s.node != nullptr) slots_[Probe(s.node)] = s;
    }
  }

  void NewChunk(size_t n) {
    heap_.emplace_back(std::make_unique_for_overwrite<Cell[]>(n));
    chunk_ = heap_.back().get();
    chunk_size_ = n;
    used_ = 0;
  }

  SmallVector<Slot, kInlineSlots> slots_;
  size_t mask_ = kInlineSlots - 1;
  int shift_ = 64 - std::countr_zero(kInlineSlots);
  size_t size_ = 0;
  Cell inline_[kInlineStates];
  SmallVector<std::unique_ptr<Cell[]>, 2> heap_;
  Cell* chunk_ = inline_;
  size_t chunk_size_ = kInlineStates, used_ = 0;
};

}  // namespace oar

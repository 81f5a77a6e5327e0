// A vector with N elements of inline storage. Shapes, strides, grad slots and
// slot metas are almost always tiny; keeping them inline removes a heap
// allocation per op from the hot path (docs/design.md §7).
//
// Note [A SmallVector points at its elements]
// The vector keeps a pointer to its first element, at its own inline room or at the
// heap block, as LLVM's SmallVector does: reading an element is one load of that
// pointer, where choosing between the two places on every access (the old layout kept
// only the heap pointer) took a test and a conditional move, and shapes, slots and
// metas are read many times per op (several hundred instructions of a link of a chain
// of one-element products went to that choice). The price: the pointer must be aimed
// whenever an inline vector is built or taken over. Every constructor starts it at the
// inline room, and a move of an inline vector moves the elements, never the pointer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace oar {

template <typename T, size_t N>
class SmallVector {
  static_assert(N > 0, "SmallVector needs at least one inline element");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;
  using size_type = size_t;
  using reference = T&;
  using const_reference = const T&;

  // User-provided: a value-initialized SmallVector (an element of a vector of them, made
  // by resize) is built by its member initializers alone, without zeroing its inline
  // room first.
  SmallVector() noexcept {}  // NOLINT(modernize-use-equals-default)
  explicit SmallVector(size_t n) { resize(n); }
  SmallVector(size_t n, const T& value) { assign(n, value); }
  SmallVector(std::initializer_list<T> init) { append(init.begin(), init.end()); }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  SmallVector(It first, It last) {
    append(first, last);
  }
  SmallVector(const SmallVector& other) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (other.size_ <= N) {  // the common case: one memcpy of the inline elements
        // A small inline buffer is copied whole: a copy of constant size compiles to a few
        // vector moves, one of size_ elements to a call of memcpy (ops copy several
        // shapes; memmove took 3% of perf's samples of a one-element C++ add).
        if (kCopyWholeBuffer && other.is_inline()) {
          std::memcpy(inline_, other.inline_, sizeof(inline_));
        } else {
          std::memcpy(inline_, other.data(), other.size_ * sizeof(T));
        }
        size_ = other.size_;
        return;
      }
    }
    append(other.begin(), other.end());
  }
  SmallVector(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    take(std::move(other));
  }
  ~SmallVector() { destroy_and_free(); }

  SmallVector& operator=(const SmallVector& other) {
    if constexpr (std::is_trivially_copyable_v<T> && kCopyWholeBuffer) {
      // The common case inline (a shape over a shape); the others out of line, so that
      // their calls do not make every function that copies a shape save registers.
      if (is_inline() && other.is_inline()) {
        if (this != &other) std::memcpy(inline_, other.inline_, sizeof(inline_));
        size_ = other.size_;
        return *this;
      }
    }
    if (this != &other) copy_from(other);
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      destroy_and_free();
      take(std::move(other));
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> init) {
    clear();
    append(init.begin(), init.end());
    return *this;
  }

  T* data() noexcept { return ptr(); }
  const T* data() const noexcept { return ptr(); }
  iterator begin() noexcept { return ptr(); }
  iterator end() noexcept { return ptr() + size_; }
  const_iterator begin() const noexcept { return ptr(); }
  const_iterator end() const noexcept { return ptr() + size_; }
  size_t size() const noexcept { return size_; }
  size_t capacity() const noexcept { return cap_; }
  bool empty() const noexcept { return size_ == 0; }

  T& operator[](size_t i) noexcept { return ptr()[i]; }
  const T& operator[](size_t i) const noexcept { return ptr()[i]; }
  T& front() noexcept { return ptr()[0]; }
  const T& front() const noexcept { return ptr()[0]; }
  T& back() noexcept { return ptr()[size_ - 1]; }
  const T& back() const noexcept { return ptr()[size_ - 1]; }
  T& at(size_t i) {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return ptr()[i];
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return ptr()[i];
  }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() noexcept {
    std::destroy_n(ptr(), size_);
    size_ = 0;
  }
  void resize(size_t n) {
    if (n < size_) {
      std::destroy(ptr() + n, ptr() + size_);
    } else if (n > size_) {
      reserve(n);
      std::uninitialized_value_construct(ptr() + size_, ptr() + n);
    }
    size_ = n;
  }
  void resize(size_t n, const T& value) {
    if (n < size_) {
      std::destroy(ptr() + n, ptr() + size_);
    } else if (n > size_) {
      const T copy(value);  // value may be one of our elements, moved by reserve()
      reserve(n);
      std::uninitialized_fill(ptr() + size_, ptr() + n, copy);
    }
    size_ = n;
  }
  void assign(size_t n, const T& value) {
    const T copy(value);  // value may be one of our elements
    clear();
    resize(n, copy);
  }
  template <typename It>
  void append(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    reserve(size_ + n);
    std::uninitialized_copy(first, last, ptr() + size_);
    size_ += n;
  }
  // Sets the size to n, leaving new elements uninitialized (trivial T only), for a caller
  // that writes every one of them next.
  void resize_for_overwrite(size_t n) requires std::is_trivial_v<T> {
    if (n > cap_) grow(n);
    size_ = n;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) {
      // Construct first: args may alias an element that grow() moves.
      T tmp(std::forward<Args>(args)...);
      grow(cap_ * 2);
      ::new (ptr() + size_) T(std::move(tmp));
    } else {
      ::new (ptr() + size_) T(std::forward<Args>(args)...);
    }
    return ptr()[size_++];
  }
  void pop_back() noexcept {
    --size_;
    std::destroy_at(ptr() + size_);
  }
  iterator insert(const_iterator pos, const T& value) {
    const size_t idx = static_cast<size_t>(pos - begin());
    T tmp(value);
    emplace_back(std::move(tmp));
    std::rotate(begin() + idx, end() - 1, end());
    return begin() + idx;
  }
  iterator erase(const_iterator pos) {
    const size_t idx = static_cast<size_t>(pos - begin());
    std::move(begin() + idx + 1, end(), begin() + idx);
    pop_back();
    return begin() + idx;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    if (a.size() != b.size()) return false;
    // An element loop, not std::equal: for integers that calls memcmp, which costs more
    // than comparing the few dims of a shape.
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a[i] == b[i])) return false;
    }
    return true;
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }

 private:
  static constexpr bool kCopyWholeBuffer = N * sizeof(T) <= 64;
  T* inline_ptr() noexcept { return reinterpret_cast<T*>(inline_); }
  bool is_inline() const noexcept { return data_ == reinterpret_cast<const T*>(inline_); }
  T* ptr() noexcept { return data_; }
  const T* ptr() const noexcept { return data_; }

  [[gnu::noinline]] void copy_from(const SmallVector& other) {
    clear();
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (other.size_ <= cap_) {
        std::memcpy(static_cast<void*>(ptr()), other.data(), other.size_ * sizeof(T));
        size_ = other.size_;
        return;
      }
    }
    append(other.begin(), other.end());
  }
  [[gnu::noinline]] void grow(size_t n) {  // rare: out of line, off the callers' fast paths
    n = std::max(n, cap_ * 2);
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(ptr(), ptr() + size_, fresh);
    std::destroy_n(ptr(), size_);
    release_heap();
    data_ = fresh;
    cap_ = n;
  }
  void release_heap() noexcept {
    if (!is_inline()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = inline_ptr();
  }
  void destroy_and_free() noexcept {
    std::destroy_n(ptr(), size_);
    release_heap();
    size_ = 0;
    cap_ = N;
  }
  void take(SmallVector&& other) {
    if (other.is_inline()) {
      std::uninitialized_move(other.begin(), other.end(), ptr());
      size_ = other.size_;
      other.clear();
    } else {
      data_ = other.data_;
      size_ = other.size_;
      cap_ = other.cap_;
      other.data_ = other.inline_ptr();
      other.size_ = 0;
      other.cap_ = N;
    }
  }

  T* data_ = inline_ptr();  // Note [A SmallVector points at its elements]
  size_t size_ = 0;
  size_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace oar

// The default random generator behind uniform/normal. Each random op draws one
// 64-bit seed from it (under a lock) and runs its own engine, so oar::seed(n)
// makes every later op reproducible and threads never share an engine.
#pragma once

#include <cstdint>
#include <mutex>

namespace oar {

class Generator {
 public:
  explicit Generator(uint64_t seed) { Seed(seed); }
  void Seed(uint64_t seed);
  uint64_t initial_seed() const;
  // A fresh seed for one op's engine (SplitMix64 over an increasing counter).
  uint64_t NextSeed();
  // The whole state (seed and counter): restoring it replays the same seeds
  // (Paddle's get_rng_state / set_rng_state).
  struct State {
    uint64_t seed = 0, counter = 0;
  };
  State GetState() const;
  void SetState(State state);

 private:
  mutable std::mutex mu_;
  uint64_t seed_ = 0;
  uint64_t counter_ = 0;
};

Generator& DefaultCPUGenerator();
// Paddle's paddle.seed(n).
void seed(uint64_t n);

}  // namespace oar

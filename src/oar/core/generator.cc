#include "oar/core/generator.h"

namespace oar {

void Generator::Seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  counter_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

uint64_t Generator::NextSeed() {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t z = seed_ + 0x9e3779b97f4a7c15ULL * ++counter_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Generator::State Generator::GetState() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {seed_, counter_};
}

void Generator::SetState(State state) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = state.seed;
  counter_ = state.counter;
}

Generator& DefaultCPUGenerator() {
  static Generator gen(34342423252ULL);  // guarded by its own mutex
  return gen;
}

void seed(uint64_t n) { DefaultCPUGenerator().Seed(n); }

}  // namespace oar

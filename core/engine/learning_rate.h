#pragma once

// What every optimizer loop shares about its learning rate: the one decay
// curve (the trainer's "cosine" schedule, the simulator's lr_schedule.h)
// and setting a LibTorch Adam's rate between steps.

namespace torch::optim {
class Adam;
}

namespace synaptic::engine {

// `base` until `progress` (the fraction of a budget used, clamped to 0-1)
// passes `decayFrom`, then down a half cosine to `final` x `base` at 1.
// `decayFrom` or `final` at 1 (or more): no decay.
double decayedLearningRate(double base, double progress, double decayFrom, double final);

// The trainer's "cosine" schedule: `base` at step 0 down to 0 at
// `totalSteps` (0 steps: no schedule, `base`).
double cosineLearningRate(double base, long long step, long long totalSteps);

// Every parameter group of `adam` steps at `lr` from its next step on.
void setAdamLearningRate(torch::optim::Adam &adam, double lr);

} // namespace synaptic::engine

#pragma once

// What every optimizer loop shares about its learning rate: the half-cosine
// decay (the trainer's schedule, the simulator's lr_schedule.h) and setting
// a LibTorch Adam's rate between steps.

namespace torch::optim {
class Adam;
}

namespace synaptic::engine {

// 1 at t <= 0, falling along a half cosine to 0 at t >= 1.
double halfCosine(double t);

// The trainer's "cosine" schedule: `base` at step 0 down to 0 at
// `totalSteps` (0 steps: no schedule, `base`).
double cosineLearningRate(double base, long long step, long long totalSteps);

// Every parameter group of `adam` steps at `lr` from its next step on.
void setAdamLearningRate(torch::optim::Adam &adam, double lr);

} // namespace synaptic::engine

#pragma once

#include "train_config.h"
#include "train_report.h"

#include <functional>
#include <memory>

namespace synaptic::engine {

// Trains the default model on Fashion-MNIST. Torch-free interface (pimpl) so
// the UI and the CLI include it without paying LibTorch's compile time.
//
// Threads: run() blocks and must be called on an engine thread, never the GUI
// thread. pause(), resume() and requestStop() may be called from any thread;
// they take effect at the next optimizer-step boundary. The progress callback
// runs on the thread that called run() and must not block for long.
class Trainer {
public:
    using ProgressCallback = std::function<void(const TrainProgress &)>;

    explicit Trainer(TrainConfig config);
    ~Trainer();
    Trainer(const Trainer &) = delete;
    Trainer &operator=(const Trainer &) = delete;

    // Loads the data, trains for config.epochs, evaluates after every epoch
    // (and every evalEverySteps steps) and returns the report. Throws
    // data::DataError for unreadable data and ConfigError / std::invalid_argument
    // for a bad config or device.
    TrainReport run(const ProgressCallback &onProgress = {});

    void pause();
    void resume();
    // Stop at the next step boundary; run() still evaluates the model it has
    // and returns a full report.
    void requestStop();
    // Stop at the next step boundary and skip the final evaluation: for a
    // window that is closing and must not wait seconds for it.
    void requestAbort();
    bool isPaused() const;
    // True while the engine thread is actually blocked by pause(), i.e. the
    // in-flight step (if any) has finished. For tests and status displays.
    bool isHeld() const;

    const TrainConfig &config() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace synaptic::engine

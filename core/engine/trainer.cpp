#include "trainer.h"

#include "core/data/fashion_mnist.h"

#include "compute_threads.h"
#include "device.h"
#include "evaluate.h"
#include "learning_rate.h"
#include "model.h"
#include "model_file.h"
#include "tensor_data.h"

#include <ATen/Parallel.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace synaptic::engine {

namespace F = torch::nn::functional;
using Clock = std::chrono::steady_clock;

struct Trainer::Impl {
    TrainConfig config;
    std::atomic<bool> stopRequested{false};
    std::atomic<bool> abortRequested{false};
    std::atomic<bool> paused{false};
    std::atomic<bool> held{false};
    std::mutex pauseMutex;
    std::condition_variable pauseCv;

    // Blocks the engine thread while paused, until resume() or requestStop().
    void waitWhilePaused() {
        std::unique_lock lock(pauseMutex);
        held = true;
        pauseCv.wait(lock, [this] { return !paused.load() || stopRequested.load(); });
        held = false;
    }
};

Trainer::Trainer(TrainConfig config) : m_impl(std::make_unique<Impl>()) { m_impl->config = std::move(config); }
Trainer::~Trainer() = default;

const TrainConfig &Trainer::config() const { return m_impl->config; }

void Trainer::pause() { m_impl->paused = true; }

void Trainer::resume() {
    {
        std::lock_guard lock(m_impl->pauseMutex);
        m_impl->paused = false;
    }
    m_impl->pauseCv.notify_all();
}

void Trainer::requestStop() {
    {
        std::lock_guard lock(m_impl->pauseMutex);
        m_impl->stopRequested = true;
    }
    m_impl->pauseCv.notify_all();
}

void Trainer::requestAbort() {
    m_impl->abortRequested = true;
    requestStop();
}

bool Trainer::isPaused() const { return m_impl->paused.load(); }

bool Trainer::isHeld() const { return m_impl->held.load(); }

TrainReport Trainer::run(const ProgressCallback &onProgress) {
    const auto wallStart = Clock::now();
    const TrainConfig &cfg = m_impl->config;
    validate(cfg);

    TrainReport report;
    report.device = resolveDevice(cfg.device);
    report.threads = resolveThreadCount(cfg.threads);
    report.batchSize = cfg.batchSize;
    report.learningRate = cfg.learningRate;
    report.lrSchedule = cfg.lrSchedule;
    report.seed = cfg.seed;
    setComputeThreads(report.threads);
    report.blasThreads = blasThreads();
    torch::manual_seed(cfg.seed);

    const std::string dir = data::resolveDataDir(cfg.dataDir);
    const TensorSet train = toTensors(data::loadFashionMnist(dir, data::Split::Train, cfg.subset), report.device);
    const TensorSet test = toTensors(data::loadFashionMnist(dir, data::Split::Test, cfg.testSubset), report.device);
    report.trainSetSize = train.size();
    report.testSetSize = test.size();

    SynapticNet model;
    model->to(torch::Device(report.device));
    report.parameters = parameterCount(*model);
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(cfg.learningRate));

    const std::int64_t n = train.size();
    const std::int64_t batch = cfg.batchSize;
    const long long stepsPerEpoch = (n + batch - 1) / batch;
    TrainProgress progress;
    progress.epochs = cfg.epochs;
    progress.totalSteps = stepsPerEpoch * cfg.epochs;

    double trainSeconds = 0;
    // Losses are summed on the device and read back only when reported, so a
    // GPU is not forced to synchronise every step.
    auto lossSum = torch::zeros({}, torch::TensorOptions().device(report.device));
    auto exitLossSum = lossSum.clone();
    long long lossSteps = 0;

    auto emit = [&](TrainProgress::Kind kind) {
        progress.kind = kind;
        progress.trainSeconds = trainSeconds;
        progress.samplesPerSecond = trainSeconds > 0 ? double(progress.samplesSeen) / trainSeconds : 0;
        const double perStep = progress.step > 0 ? trainSeconds / double(progress.step) : 0;
        progress.etaSeconds = perStep * double(progress.totalSteps - progress.step);
        if (onProgress)
            onProgress(progress);
    };
    auto reportLoss = [&] {
        if (lossSteps == 0)
            return;
        progress.loss = lossSum.item<double>() / double(lossSteps);
        progress.exitLoss = exitLossSum.item<double>() / double(lossSteps);
        lossSum.zero_();
        exitLossSum.zero_();
        lossSteps = 0;
        report.lossCurve.push_back({progress.step, progress.epoch, progress.loss});
        emit(TrainProgress::Kind::Step);
    };
    auto runEvaluation = [&] {
        const auto evalStart = Clock::now();
        const Accuracy acc = evaluate(model, test);
        report.evalSeconds += std::chrono::duration<double>(Clock::now() - evalStart).count();
        progress.testAccuracy = acc.main;
        progress.exitTestAccuracy = acc.exit;
        report.evalCurve.push_back({progress.step, progress.epoch, acc.main, acc.exit});
        emit(TrainProgress::Kind::Evaluation);
    };

    const bool cosineSchedule = cfg.lrSchedule == "cosine";
    model->train();
    for (int epoch = 1; epoch <= cfg.epochs && !m_impl->stopRequested; ++epoch) {
        progress.epoch = epoch;
        auto segmentStart = Clock::now();
        const auto order = torch::randperm(n, torch::TensorOptions().dtype(torch::kInt64)).to(report.device);
        for (std::int64_t start = 0; start < n; start += batch) {
            if (m_impl->stopRequested)
                break;
            if (m_impl->paused) {
                trainSeconds += std::chrono::duration<double>(Clock::now() - segmentStart).count();
                m_impl->waitWhilePaused();
                segmentStart = Clock::now();
                if (m_impl->stopRequested) // woken by a stop, not a resume
                    break;
            }
            const auto idx = order.slice(0, start, std::min(n, start + batch));
            const auto images = train.inputs.index_select(0, idx);
            const auto labels = train.labels.index_select(0, idx);

            if (cosineSchedule)
                setAdamLearningRate(optimizer, cosineLearningRate(cfg.learningRate, progress.step, progress.totalSteps));
            optimizer.zero_grad();
            const ModelOutput out = model->forward(images);
            const auto mainLoss = F::cross_entropy(out.logits, labels);
            const auto exitLoss = F::cross_entropy(out.exitLogits, labels);
            const auto loss = mainLoss + cfg.exitWeight * exitLoss;
            loss.backward();
            optimizer.step();

            lossSum += mainLoss.detach();
            exitLossSum += exitLoss.detach();
            ++lossSteps;
            ++progress.step;
            progress.samplesSeen += idx.size(0);

            const bool reportNow = progress.step % cfg.progressEverySteps == 0;
            const bool evalNow = cfg.evalEverySteps > 0 && progress.step % cfg.evalEverySteps == 0;
            if (reportNow || evalNow) {
                trainSeconds += std::chrono::duration<double>(Clock::now() - segmentStart).count();
                if (reportNow)
                    reportLoss();
                if (evalNow)
                    runEvaluation();
                segmentStart = Clock::now();
            }
        }
        trainSeconds += std::chrono::duration<double>(Clock::now() - segmentStart).count();
        reportLoss();
        if (m_impl->stopRequested)
            break;
        report.epochs = epoch;
        // The last step of an epoch may already have been evaluated.
        if (report.evalCurve.empty() || report.evalCurve.back().step != progress.step)
            runEvaluation();
    }

    report.stopped = m_impl->stopRequested.load();
    const bool evaluated = !report.evalCurve.empty() && report.evalCurve.back().step == progress.step;
    if (!evaluated && !m_impl->abortRequested)
        runEvaluation();
    // An aborted run reports its latest evaluation, if it had one.
    if (!report.evalCurve.empty()) {
        report.testAccuracy = report.evalCurve.back().testAccuracy;
        report.exitTestAccuracy = report.evalCurve.back().exitTestAccuracy;
    }
    report.steps = progress.step;
    report.samples = progress.samplesSeen;
    report.trainSeconds = trainSeconds;
    report.samplesPerSecond = trainSeconds > 0 ? double(report.samples) / trainSeconds : 0;
    if (!cfg.modelPath.empty() && !m_impl->abortRequested)
        saveModel(cfg.modelPath, model, {"train", report.testAccuracy, report.exitTestAccuracy, {}});
    report.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
    emit(TrainProgress::Kind::Finished);
    return report;
}

} // namespace synaptic::engine

#include "train_report.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace synaptic::engine {

std::string toJson(const TrainReport &r) {
    nlohmann::json j;
    j["test_accuracy"] = r.testAccuracy;
    j["exit_test_accuracy"] = r.exitTestAccuracy;
    j["epochs"] = r.epochs;
    j["steps"] = r.steps;
    j["samples"] = r.samples;
    j["samples_per_second"] = r.samplesPerSecond;
    j["train_seconds"] = r.trainSeconds;
    j["eval_seconds"] = r.evalSeconds;
    j["wall_seconds"] = r.wallSeconds;
    j["device"] = r.device;
    j["threads"] = r.threads;
    j["blas_threads"] = r.blasThreads;
    j["parameters"] = r.parameters;
    j["train_set_size"] = r.trainSetSize;
    j["test_set_size"] = r.testSetSize;
    j["batch"] = r.batchSize;
    j["lr"] = r.learningRate;
    j["lr_schedule"] = r.lrSchedule;
    j["seed"] = r.seed;
    j["stopped"] = r.stopped;
    auto &loss = j["loss_curve"] = nlohmann::json::array();
    for (const auto &p : r.lossCurve)
        loss.push_back({{"step", p.step}, {"epoch", p.epoch}, {"loss", p.loss}});
    auto &eval = j["eval_curve"] = nlohmann::json::array();
    for (const auto &p : r.evalCurve)
        eval.push_back({{"step", p.step},
                        {"epoch", p.epoch},
                        {"test_accuracy", p.testAccuracy},
                        {"exit_test_accuracy", p.exitTestAccuracy}});
    return j.dump(2) + "\n";
}

void writeFileAtomically(const std::string &path, const std::string &text) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error(path + ": cannot write (directory missing or not writable)");
        out << text;
        out.flush();
        if (!out)
            throw std::runtime_error(path + ": write failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": cannot replace (" + ec.message() + ")");
    }
}

} // namespace synaptic::engine

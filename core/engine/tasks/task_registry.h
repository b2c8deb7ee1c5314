#pragma once

#include "task_model.h"

#include "core/engine/synapse/layer_layout.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace synaptic::engine {

// A training task the engine knows (issue 16 §1): its model, the layer layout
// the planner shards, where its data comes from and how it is scored. The
// layout is declared, not read off the model, so a model change that would
// silently re-shard the cluster (or a layout written for another model) is
// caught when the task is registered.
struct TaskSpec {
    std::string name;        // "fashion-mnist", "langid"
    std::string description; // one line, for --help and the app
    std::string data;        // where the data comes from, for messages
    std::string evaluation;  // how it is scored, for reports
    // A fresh model (its own initialisation, from torch's global seed).
    std::function<std::unique_ptr<TaskModel>()> makeModel;
    std::vector<LayerLayout> layout;
    // The train and test sets from a folder (empty: the task's default
    // lookup) on a device. Throws DataError naming what is missing.
    std::function<TaskData(const std::string &dir, const std::string &device)> loadData;
    // Training FLOPs of one sample: the compute model's cost of a step.
    double trainFlopsPerSample = 0;
    // Labels are 0..classes-1 (what a label-skewed partition draws over).
    int classes = 0;
};

// The tasks by name. Engine thread (built once, read-only afterwards).
class TaskRegistry {
public:
    // Adds `task` after checking that its model's layout (model_layout.h)
    // matches the declared one layer by layer: names, kinds, rows and
    // parameters per row. Throws ConfigError naming the task and the first
    // difference; a duplicate name is refused the same way.
    void add(TaskSpec task);

    // Throws ConfigError listing the known names when `name` is not one.
    const TaskSpec &find(const std::string &name) const;
    std::vector<std::string> names() const;

    // Fashion-MNIST with the split CNN (the default) and language ID over
    // Debian's fortune files.
    static const TaskRegistry &builtIn();

private:
    std::vector<TaskSpec> m_tasks;
};

inline constexpr const char *kDefaultTask = "fashion-mnist";

} // namespace synaptic::engine

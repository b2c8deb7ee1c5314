#pragma once

#include "core/engine/synapse/layer_layout.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

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
    std::function<std::shared_ptr<torch::nn::Module>()> makeModel;
    std::vector<LayerLayout> layout;
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

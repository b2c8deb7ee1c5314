#include "task_registry.h"

#include "fashion_task.h"
#include "langid_task.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/config_error.h"
#include "core/engine/synapse/model_layout.h"

#include <algorithm>

namespace synaptic::engine {

namespace {

const char *layerKindName(LayerLayout::Kind kind) {
    switch (kind) {
    case LayerLayout::Kind::Conv: return "conv";
    case LayerLayout::Kind::Linear: return "linear";
    case LayerLayout::Kind::Embedding: return "embedding";
    }
    return "?";
}

std::string describe(const LayerLayout &l) {
    return std::string("'") + l.name + "' (" + layerKindName(l.kind) + ", " + std::to_string(l.rows) + " rows x " +
           std::to_string(l.paramsPerRow) + ")";
}

LayerLayout layer(std::string name, LayerLayout::Kind kind, std::int64_t rows, std::int64_t perRow) {
    LayerLayout l;
    l.name = std::move(name);
    l.kind = kind;
    l.rows = rows;
    l.paramsPerRow = perRow;
    return l;
}

} // namespace

void TaskRegistry::add(TaskSpec task) {
    const std::string where = "task '" + task.name + "'";
    if (std::any_of(m_tasks.begin(), m_tasks.end(), [&](const TaskSpec &t) { return t.name == task.name; }))
        throw ConfigError(where, "is registered twice");
    if (!task.makeModel)
        throw ConfigError(where, "has no model");
    if (!task.loadData)
        throw ConfigError(where, "has no data loader");
    if (!(task.trainFlopsPerSample > 0))
        throw ConfigError(where, "has no training cost per sample");
    if (task.classes < 1 || task.classes > 256) // TaskData keeps labels as bytes
        throw ConfigError(where, "has " + std::to_string(task.classes) + " classes; 1 to 256 are supported");
    const auto actual = layoutOf(task.makeModel()->module());
    const auto &declared = task.layout;
    for (std::size_t i = 0; i < std::max(actual.size(), declared.size()); ++i) {
        if (i >= declared.size())
            throw ConfigError(where, "its model has layer " + describe(actual[i]) + " that the layout does not declare");
        if (i >= actual.size())
            throw ConfigError(where, "declares layer " + describe(declared[i]) + " that its model does not have");
        const auto &a = actual[i];
        const auto &d = declared[i];
        if (a.name != d.name || a.kind != d.kind || a.rows != d.rows || a.paramsPerRow != d.paramsPerRow)
            throw ConfigError(where, "declares layer " + std::to_string(i) + " as " + describe(d) +
                                         " but its model has " + describe(a));
    }
    m_tasks.push_back(std::move(task));
}

const TaskSpec &TaskRegistry::find(const std::string &name) const {
    for (const auto &t : m_tasks)
        if (t.name == name)
            return t;
    std::string known;
    for (const auto &t : m_tasks)
        known += (known.empty() ? "" : ", ") + t.name;
    throw ConfigError("task", "unknown task '" + name + "' (known: " + known + ")");
}

std::vector<std::string> TaskRegistry::names() const {
    std::vector<std::string> out;
    for (const auto &t : m_tasks)
        out.push_back(t.name);
    return out;
}

const TaskRegistry &TaskRegistry::builtIn() {
    static const TaskRegistry registry = [] {
        using K = LayerLayout::Kind;
        TaskRegistry r;
        // Per row: a conv's weights and bias, plus its batch-norm's weight and bias.
        r.add({kDefaultTask, "Fashion-MNIST images, the split CNN with an early-exit head",
               "Debian's dataset-fashion-mnist", "test accuracy, 10 classes",
               makeFashionTaskModel,
               {layer("conv1", K::Conv, 32, 9 + 1 + 2), layer("squeeze", K::Conv, 4, 32 * 4 + 1 + 2),
                layer("expand", K::Conv, 32, 4 * 9 + 1 + 2), layer("conv2", K::Conv, 64, 32 * 9 + 1 + 2),
                layer("fc1", K::Linear, 128, 576 + 1), layer("fc2", K::Linear, 10, 128 + 1),
                layer("exit_head", K::Linear, 10, 512 + 1)},
               loadFashionData, fashionTrainFlopsPerSample(), 10});
        // 2^16 rows (the floor), not the hot-update scenario's 2^20
        // (hot_update_options.h): the strategies train and ship the table
        // densely, and a 2^20 x 32 table is 134 MB per gradient, more than the
        // default cluster's links can carry per step (a 6-edge run queued
        // over 24 GB). The scenario's sparse row deltas are what make 2^20 pay.
        const LangIdShape shape{std::int64_t(1) << 16, 32, std::int64_t(data::fortuneLanguages().size())};
        r.add({"langid", "language identification over Debian's fortune files, hashed character n-grams",
               std::string("Debian's fortune packages under ") + data::kDefaultFortuneDir,
               "test accuracy over 12 languages (per language in the hot-update scenario)",
               [shape] { return makeLangIdTaskModel(shape); },
               {layer("embedding", K::Embedding, shape.buckets, shape.dim),
                layer("classifier", K::Linear, shape.classes, shape.dim + 1)},
               [shape](const std::string &dir, const std::string &device) {
                   LangIdDataOptions o;
                   o.buckets = shape.buckets;
                   return loadLangIdData(dir, device, o);
               },
               langIdTrainFlopsPerSample(shape), int(shape.classes)});
        return r;
    }();
    return registry;
}

} // namespace synaptic::engine

#pragma once

// What the simulator tests share: Fashion-MNIST (by default the whole
// training set and the first 500 test images; 0 training images: all) as
// tensors on the CPU, and the 2 × 3 tiny cluster config from tests/data,
// with LibTorch on two threads, or SYNAPTIC_TEST_THREADS (test_threads.h).
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/tensor_data.h"
#include "test_threads.h"

#include <QString>

inline void loadTinyClusterData(synaptic::data::ImageSet &trainSet, synaptic::engine::TensorSet &train,
                                synaptic::engine::TensorSet &test, synaptic::engine::ClusterConfig &tiny,
                                std::size_t trainImages = 0, std::size_t testImages = 500) {
    namespace data = synaptic::data;
    setTestThreads();
    const std::string dir = data::resolveDataDir("");
    trainSet = data::loadFashionMnist(dir, data::Split::Train, trainImages);
    train = synaptic::engine::toTensors(trainSet, "cpu");
    test = synaptic::engine::toTensors(data::loadFashionMnist(dir, data::Split::Test, testImages), "cpu");
    tiny = synaptic::engine::loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() +
                                               "/tiny_cluster.json");
}

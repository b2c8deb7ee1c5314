// Intentionally empty: synaptic_pic_pch exists only to build the shared
// precompiled header of the -fPIC -pthread targets (core/CMakeLists.txt),
// and a library needs a source.

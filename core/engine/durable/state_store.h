#pragma once

#include "state_part.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace synaptic::engine {

// Where nodes keep what they must not lose across a crash (issue 15 §1):
// an owner's shard values, optimizer state, versions and sync bookkeeping.
// A write replaces the node's state atomically: a crash at any point leaves
// the old state or the new one, never a mix. The generation before the
// last is kept too, so a test or the fault matrix can restart a node from
// an old state file. A node's parts (state_part.h) are separate states,
// each with its own generations. Engine thread.
class StateStore {
public:
    virtual ~StateStore() = default;
    virtual void write(int node, const std::string &bytes, StatePart part = StatePart::Node) = 0;
    // The node's newest state; nullopt when it never wrote one.
    virtual std::optional<std::string> read(int node, StatePart part = StatePart::Node) const = 0;
    // The generation before the newest (an old state file); nullopt if none.
    virtual std::optional<std::string> readPrevious(int node, StatePart part = StatePart::Node) const = 0;
    // Where a node's state lives, for error messages ("node 3 (memory)").
    virtual std::string describe(int node, StatePart part = StatePart::Node) const = 0;
    std::uint64_t writes() const { return m_writes; }

protected:
    std::uint64_t m_writes = 0;
};

// The simulator's store: bytes in memory that outlive a node's "process"
// (a kill drops the node's memory, not this).
class MemoryStateStore final : public StateStore {
public:
    void write(int node, const std::string &bytes, StatePart part = StatePart::Node) override;
    std::optional<std::string> read(int node, StatePart part = StatePart::Node) const override;
    std::optional<std::string> readPrevious(int node, StatePart part = StatePart::Node) const override;
    std::string describe(int node, StatePart part = StatePart::Node) const override;

private:
    std::map<std::pair<int, StatePart>, std::pair<std::string, std::string>> m_state; // -> (newest, previous)
};

// Files under `dir`/node-<id>/: state.bin (hub-state.bin for a hub's part) is written as state.bin.tmp,
// fsynced, and renamed over it, the old one hard-linked as state.bin.prev
// first (so state.bin exists at every instant); the directory is fsynced
// after the rename. Throws StateFileError naming the file on I/O errors; a
// file that does not exist is the only "no state".
class FileStateStore final : public StateStore {
public:
    explicit FileStateStore(std::string dir);
    void write(int node, const std::string &bytes, StatePart part = StatePart::Node) override;
    std::optional<std::string> read(int node, StatePart part = StatePart::Node) const override;
    std::optional<std::string> readPrevious(int node, StatePart part = StatePart::Node) const override;
    std::string describe(int node, StatePart part = StatePart::Node) const override;
    std::string pathOf(int node, StatePart part = StatePart::Node) const;

private:
    std::string m_dir;
};

} // namespace synaptic::engine

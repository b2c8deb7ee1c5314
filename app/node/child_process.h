#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace synaptic::app {

// A child process of `synaptic-node cluster`: started with fork/exec, its
// stdout read line by line (and echoed as "[name] line"), its stderr shared
// with ours. It dies with us even if we are killed (PR_SET_PDEATHSIG), so
// a launcher never leaves orphans.
class ChildProcess {
public:
    ChildProcess(std::string name, const std::string &program, const std::vector<std::string> &args);
    ~ChildProcess();
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    // Waits for a stdout line starting with `prefix`; returns the rest of
    // it, or an empty string if the child ended or `seconds` passed first.
    std::string waitForLine(const std::string &prefix, double seconds);
    bool running();
    pid_t pid() const { return m_pid; }
    void terminate(); // SIGTERM
    // SIGTERM, up to `graceSeconds` to exit, then SIGKILL. Returns the exit
    // status (128 + signal when killed by one).
    int stop(double graceSeconds);

    // This program's own path (/proc/self/exe).
    static std::string selfPath();

private:
    void readOutput(int fd);
    int reap(bool block);

    std::string m_name;
    pid_t m_pid = -1;
    int m_status = -1; // -1 while running
    std::mutex m_mutex;
    std::condition_variable m_lines;
    std::vector<std::string> m_output; // guarded
    bool m_eof = false;                // guarded
    std::thread m_reader;
};

} // namespace synaptic::app

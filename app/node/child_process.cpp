#include "child_process.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace synaptic::app {

ChildProcess::ChildProcess(std::string name, const std::string &program, const std::vector<std::string> &args)
    : m_name(std::move(name)) {
    int out[2];
    if (pipe(out) != 0)
        throw std::runtime_error("cannot start " + m_name + ": pipe failed");
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    m_pid = fork();
    if (m_pid < 0)
        throw std::runtime_error("cannot start " + m_name + ": fork failed");
    if (m_pid == 0) {
        // The child dies with its launcher, however the launcher ends.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1); // the launcher died before prctl took effect
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execv(program.c_str(), argv.data());
        std::fprintf(stderr, "cannot run %s\n", program.c_str());
        _exit(127);
    }
    close(out[1]);
    m_reader = std::thread([this, fd = out[0]] { readOutput(fd); });
}

ChildProcess::~ChildProcess() {
    stop(5);
    if (m_reader.joinable())
        m_reader.join();
}

void ChildProcess::readOutput(int fd) {
    FILE *in = fdopen(fd, "r");
    char *line = nullptr;
    std::size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) > 0) {
        std::string text(line, std::size_t(n));
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.pop_back();
        std::printf("[%s] %s\n", m_name.c_str(), text.c_str());
        std::fflush(stdout);
        std::lock_guard lock(m_mutex);
        m_output.push_back(std::move(text));
        m_lines.notify_all();
    }
    free(line);
    fclose(in);
    std::lock_guard lock(m_mutex);
    m_eof = true;
    m_lines.notify_all();
}

std::string ChildProcess::waitForLine(const std::string &prefix, double seconds) {
    std::unique_lock lock(m_mutex);
    std::string found;
    m_lines.wait_for(lock, std::chrono::duration<double>(seconds), [&] {
        for (const auto &l : m_output)
            if (l.rfind(prefix, 0) == 0) {
                found = l.substr(prefix.size());
                return true;
            }
        return m_eof;
    });
    return found;
}

int ChildProcess::reap(bool block) {
    if (m_status >= 0 || m_pid <= 0)
        return m_status;
    int status = 0;
    const pid_t r = waitpid(m_pid, &status, block ? 0 : WNOHANG);
    if (r == m_pid)
        m_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return m_status;
}

bool ChildProcess::running() { return reap(false) < 0; }

void ChildProcess::terminate() {
    if (running())
        kill(m_pid, SIGTERM);
}

int ChildProcess::stop(double graceSeconds) {
    if (!running())
        return m_status;
    kill(m_pid, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(graceSeconds);
    while (running() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (running()) {
        std::fprintf(stderr, "synaptic-node cluster: %s did not stop in %.0f s; killing it\n", m_name.c_str(),
                     graceSeconds);
        kill(m_pid, SIGKILL);
    }
    return reap(true);
}

std::string ChildProcess::selfPath() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        throw std::runtime_error("cannot find this program's path (/proc/self/exe)");
    return std::string(buf, std::size_t(n));
}

} // namespace synaptic::app

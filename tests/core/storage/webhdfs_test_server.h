#pragma once
// Starts tests/core/storage/webhdfs_test_server.py on 127.0.0.1 (ephemeral port) over a temporary
// directory that plays the HDFS namespace, and drives its fault injection. The server stops by
// itself when idle; the destructor also stops it. The port stays held (bound, never listening)
// until the destructor, so that once stop() is called connections to it are refused: a server of
// another test running at the same time cannot be given the port and answer in its place.

#include <chrono>
#include <csignal>
#include <cstdio>
#include <curl/curl.h>
#include <filesystem>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace xt::test {

class WebHdfsTestServer {
public:
    // Stops by itself after `idleExit` seconds without a request or `maxLife` seconds in all.
    explicit WebHdfsTestServer(const std::string& root, int idleExit = 20, int maxLife = 120) {
        const std::string idle = std::to_string(idleExit), life = std::to_string(maxLife);
        int fds[2];
        if (::pipe(fds) != 0) return;
        m_pid = ::fork();
        if (m_pid == 0) {
            ::dup2(fds[1], STDOUT_FILENO);
            ::close(fds[0]);
            ::close(fds[1]);
            std::string script =
                std::string(XT_SOURCE_DIR) + "/tests/core/storage/webhdfs_test_server.py";
            ::execl("/usr/bin/python3", "python3", script.c_str(), "--root", root.c_str(),
                    "--idle-exit", idle.c_str(), "--max-life", life.c_str(),
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(fds[1]);
        FILE* f = ::fdopen(fds[0], "r");
        if (f) {
            if (std::fscanf(f, "%d", &m_port) != 1) m_port = 0;
            std::fclose(f);
        }
        if (m_port > 0) holdPort();
    }
    ~WebHdfsTestServer() {
        stop();
        if (m_hold >= 0) ::close(m_hold);
    }

    int port() const { return m_port; }
    std::string url(const std::string& path) const {
        return "hdfs://127.0.0.1:" + std::to_string(m_port) + path;
    }
    // GET /_control?query; returns the JSON body ("" on failure).
    std::string control(const std::string& query) const {
        std::string body;
        CURL* h = curl_easy_init();
        std::string u = "http://127.0.0.1:" + std::to_string(m_port) + "/_control?" + query;
        curl_easy_setopt(h, CURLOPT_URL, u.c_str());
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
        curl_easy_setopt(
            h, CURLOPT_WRITEFUNCTION, +[](char* d, size_t s, size_t n, void* b) {
                static_cast<std::string*>(b)->append(d, s * n);
                return s * n;
            });
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
        CURLcode rc = curl_easy_perform(h);
        curl_easy_cleanup(h);
        return rc == CURLE_OK ? body : std::string();
    }
    void stop() {
        if (m_pid <= 0) return;
        control("shutdown=1");
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
                m_pid = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }

private:
    // Both this socket and the server's set SO_REUSEPORT, which lets this one bind while the server
    // listens; the kernel never hands a bound port out to a bind to port 0.
    void holdPort() {
        m_hold = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int on = 1;
        ::setsockopt(m_hold, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(m_port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(m_hold, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            std::perror("WebHdfsTestServer: holding the port");
            ::close(m_hold);
            m_hold = -1;
        }
    }

    pid_t m_pid = -1;
    int m_port = 0;
    int m_hold = -1;
};

} // namespace xt::test

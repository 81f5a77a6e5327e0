// The rendezvous store: a key-value server on the master (rank 0's process)
// and one persistent client connection per process. Gloo's contexts exchange
// their transport addresses through it (gloo::rendezvous::Store), and the
// server doubles as the liveness registry: a client connection that closes
// without saying goodbye marks its rank dead, so a failed collective can name
// the rank that was lost (Note [Naming the lost rank] in process_group.cc).
// It carries only rendezvous keys; tensors travel over Gloo's transport.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace oar::distributed {

class TcpStoreServer {
 public:
  // Listens on host:port (port 0 picks a free one: port()).
  TcpStoreServer(const std::string& host, int port);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;
  int port() const { return port_; }

 private:
  void Serve();
  int listen_fd_ = -1;
  int wake_fd_[2] = {-1, -1};  // a pipe that stops Serve()
  int port_ = 0;
  std::thread thread_;
};

class TcpStore {
 public:
  // Connects to the server at host:port, retrying until `timeout`, and
  // registers this connection as `rank`'s.
  TcpStore(const std::string& host, int port, int rank, std::chrono::milliseconds timeout);
  ~TcpStore();  // says goodbye, so a clean exit is not taken for a lost rank
  TcpStore(const TcpStore&) = delete;
  TcpStore& operator=(const TcpStore&) = delete;

  void Set(const std::string& key, const std::vector<char>& value);
  // Waits for the key until the timeout; throws naming the key.
  std::vector<char> Get(const std::string& key, std::chrono::milliseconds timeout);
  std::optional<std::vector<char>> TryGet(const std::string& key);
  // The ranks whose connection closed without goodbye, as the server saw it.
  std::vector<int> DeadRanks(int world_size);
  std::chrono::milliseconds timeout() const { return timeout_; }
  const std::string& address() const { return address_; }

 private:
  // One request and its reply; returns the found flag, throws on a lost server.
  bool Request(char cmd, const std::string& key, const std::vector<char>& value,
               std::vector<char>* reply);
  int fd_ = -1;
  std::mutex mu_;
  std::chrono::milliseconds timeout_;
  std::string address_;
};

}  // namespace oar::distributed

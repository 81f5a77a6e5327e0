#include "oar/distributed/tcp_store.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <unordered_map>

#include "oar/core/errors.h"

namespace oar::distributed {
namespace {

// Wire format, both ways: a command byte, then length-prefixed key and value.
// Replies: a status byte (1 found / 0 not) and a length-prefixed value.
constexpr char kHello = 'H', kSet = 'S', kGet = 'G', kBye = 'B';
const std::string kDeadPrefix = "oar/dead/";

bool WriteAll(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteBlob(int fd, const char* p, uint32_t n) {
  return WriteAll(fd, &n, sizeof n) && (n == 0 || WriteAll(fd, p, n));
}

bool ReadBlob(int fd, std::vector<char>* out) {
  uint32_t n = 0;
  if (!ReadAll(fd, &n, sizeof n)) return false;
  out->resize(n);
  return n == 0 || ReadAll(fd, out->data(), n);
}

addrinfo* Resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string p = std::to_string(port);
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), p.c_str(), &hints, &res);
  if (rc != 0) {
    throw errors::InvalidArgument("distributed: cannot resolve the master address '", host, ":",
                                  port, "': ", gai_strerror(rc));
  }
  return res;
}

}  // namespace

TcpStoreServer::TcpStoreServer(const std::string& host, int port) {
  addrinfo* res = Resolve(host, port, true);
  listen_fd_ = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // Bind to every interface: the master address may name this host by an
  // address of one interface while peers reach it through another.
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_port = htons(static_cast<uint16_t>(port));
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  ::freeaddrinfo(res);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    throw errors::PreconditionNotMet("distributed: rank 0 cannot listen on port ", port,
                                     " for the rendezvous store: ", std::strerror(err),
                                     " (is another job using MASTER_PORT/PADDLE_MASTER?)");
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.sin_port);
  if (::pipe2(wake_fd_, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    throw errors::Fatal("distributed: pipe2 failed: ", std::strerror(errno));
  }
  thread_ = std::thread([this] { Serve(); });
}

TcpStoreServer::~TcpStoreServer() {
  const char b = 0;
  [[maybe_unused]] ssize_t w = ::write(wake_fd_[1], &b, 1);
  thread_.join();
  ::close(wake_fd_[0]);
  ::close(wake_fd_[1]);
  ::close(listen_fd_);
}

void TcpStoreServer::Serve() {
  std::unordered_map<std::string, std::vector<char>> data;
  struct Client {
    int rank = -1;
    bool said_bye = false;
  };
  std::map<int, Client> clients;  // by fd
  auto drop = [&](int fd) {
    Client c = clients[fd];
    clients.erase(fd);
    ::close(fd);
    if (c.rank >= 0 && !c.said_bye) data[kDeadPrefix + std::to_string(c.rank)] = {'1'};
  };
  for (;;) {
    std::vector<pollfd> fds{{wake_fd_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (auto& [fd, c] : clients) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        clients[fd] = Client{};
      }
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      const int fd = fds[i].fd;
      char cmd = 0;
      std::vector<char> key, value;
      if (!ReadAll(fd, &cmd, 1) || !ReadBlob(fd, &key) || !ReadBlob(fd, &value)) {
        drop(fd);
        continue;
      }
      std::string k(key.begin(), key.end());
      char status = 1;
      std::vector<char> reply;
      if (cmd == kHello) {
        clients[fd].rank = std::stoi(k);
      } else if (cmd == kBye) {
        clients[fd].said_bye = true;
      } else if (cmd == kSet) {
        data[k] = std::move(value);
      } else if (cmd == kGet) {
        auto it = data.find(k);
        status = it != data.end();
        if (status) reply = it->second;
      }
      if (!WriteAll(fd, &status, 1) ||
          !WriteBlob(fd, reply.data(), static_cast<uint32_t>(reply.size()))) {
        drop(fd);
      }
    }
  }
  for (auto& [fd, c] : clients) ::close(fd);
}

TcpStore::TcpStore(const std::string& host, int port, int rank, std::chrono::milliseconds timeout)
    : timeout_(timeout), address_(host + ":" + std::to_string(port)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error;
  while (fd_ < 0) {
    addrinfo* res = Resolve(host, port, false);
    int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      last_error = std::strerror(errno);
      ::close(fd);
    }
    ::freeaddrinfo(res);
    if (fd_ >= 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      throw errors::PreconditionNotMet(
          "init_parallel_env(): rank ", rank, " could not reach the rendezvous store of rank 0 at ",
          address_, " within ", timeout.count() / 1000.0, " s (", last_error,
          "); is rank 0 running and the master address right?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<char> ignored;
  Request(kHello, std::to_string(rank), {}, &ignored);
}

TcpStore::~TcpStore() {
  if (fd_ < 0) return;
  try {
    std::vector<char> ignored;
    Request(kBye, "", {}, &ignored);
  } catch (...) {
    // The server is gone already; nothing to say goodbye to.
  }
  ::close(fd_);
}

bool TcpStore::Request(char cmd, const std::string& key, const std::vector<char>& value,
                       std::vector<char>* reply) {
  std::lock_guard<std::mutex> lock(mu_);
  char status = 0;
  if (!WriteAll(fd_, &cmd, 1) || !WriteBlob(fd_, key.data(), static_cast<uint32_t>(key.size())) ||
      !WriteBlob(fd_, value.data(), static_cast<uint32_t>(value.size())) ||
      !ReadAll(fd_, &status, 1) || !ReadBlob(fd_, reply)) {
    throw errors::PreconditionNotMet("distributed: lost the connection to the rendezvous store at ",
                                     address_, ": rank 0 was lost (its process exited)");
  }
  return status != 0;
}

void TcpStore::Set(const std::string& key, const std::vector<char>& value) {
  std::vector<char> ignored;
  Request(kSet, key, value, &ignored);
}

std::optional<std::vector<char>> TcpStore::TryGet(const std::string& key) {
  std::vector<char> reply;
  if (!Request(kGet, key, {}, &reply)) return std::nullopt;
  return reply;
}

std::vector<char> TcpStore::Get(const std::string& key, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    if (auto v = TryGet(key)) return *v;
    if (std::chrono::steady_clock::now() > deadline) {
      throw errors::PreconditionNotMet("distributed: timed out after ", timeout.count() / 1000.0,
                                       " s waiting for '", key, "' in the rendezvous store at ",
                                       address_, " (a rank did not start or did not join)");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::vector<int> TcpStore::DeadRanks(int world_size) {
  std::vector<int> dead;
  try {
    for (int r = 0; r < world_size; ++r) {
      if (TryGet(kDeadPrefix + std::to_string(r))) dead.push_back(r);
    }
  } catch (const Error&) {
    return {0};  // the store lives in rank 0's process
  }
  return dead;
}

}  // namespace oar::distributed

// A shared library for LD_PRELOAD (tests only) that sends a program's TCP
// connects to other addresses: the fault tests start each ordo-node under
// it so that its connections to the other nodes' Raft and snapshot ports
// pass through proxies the test can cut (a network partition on one host),
// with no change to the node. Only this library reads the variable:
//
//   ORDO_TEST_DIAL_VIA=A=B,C=D,...   a connect(2) to IPv4:port A goes to
//                                    IPv4:port B instead (at most 64 pairs;
//                                    a malformed pair ends the process at
//                                    load, naming it)
//
// Other connects, and every one when the variable is unset, pass through.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Rewrite {
  in_addr_t from_ip;  // network order
  in_port_t from_port;
  in_addr_t to_ip;
  in_port_t to_port;
};

constexpr int kMaxRewrites = 64;
Rewrite g_rewrites[kMaxRewrites];
int g_count = 0;

using ConnectFn = int (*)(int, const sockaddr*, socklen_t);
ConnectFn g_real_connect = nullptr;

// "1.2.3.4:5" into ip and port (network order); false when malformed.
bool parse(const char* text, size_t len, in_addr_t& ip, in_port_t& port) {
  char buf[32];
  if (len == 0 || len >= sizeof buf) return false;
  std::memcpy(buf, text, len);
  buf[len] = '\0';
  char* colon = std::strrchr(buf, ':');
  if (colon == nullptr) return false;
  *colon = '\0';
  in_addr addr{};
  if (::inet_pton(AF_INET, buf, &addr) != 1) return false;
  char* end = nullptr;
  long p = std::strtol(colon + 1, &end, 10);
  if (*end != '\0' || p <= 0 || p > 65535) return false;
  ip = addr.s_addr;
  port = htons(static_cast<uint16_t>(p));
  return true;
}

[[noreturn]] void bad(const char* item, size_t len) {
  std::fprintf(stderr, "dial_via_preload: ORDO_TEST_DIAL_VIA: bad pair '%.*s'\n",
               static_cast<int>(len), item);
  std::abort();
}

__attribute__((constructor)) void load() {
  g_real_connect = reinterpret_cast<ConnectFn>(::dlsym(RTLD_NEXT, "connect"));
  const char* env = std::getenv("ORDO_TEST_DIAL_VIA");
  if (env == nullptr) return;
  const char* at = env;
  while (*at != '\0') {
    const char* comma = std::strchr(at, ',');
    size_t len = comma ? static_cast<size_t>(comma - at) : std::strlen(at);
    const char* eq = static_cast<const char*>(std::memchr(at, '=', len));
    if (eq == nullptr || g_count == kMaxRewrites) bad(at, len);
    Rewrite r{};
    if (!parse(at, static_cast<size_t>(eq - at), r.from_ip, r.from_port) ||
        !parse(eq + 1, len - static_cast<size_t>(eq - at) - 1, r.to_ip, r.to_port)) {
      bad(at, len);
    }
    g_rewrites[g_count++] = r;
    at += len;
    if (*at == ',') ++at;
  }
}

}  // namespace

extern "C" int connect(int fd, const sockaddr* addr, socklen_t len) {
  if (g_real_connect == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (addr != nullptr && addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    sockaddr_in in;
    std::memcpy(&in, addr, sizeof in);
    for (int i = 0; i < g_count; ++i) {
      const Rewrite& r = g_rewrites[i];
      if (in.sin_addr.s_addr == r.from_ip && in.sin_port == r.from_port) {
        in.sin_addr.s_addr = r.to_ip;
        in.sin_port = r.to_port;
        return g_real_connect(fd, reinterpret_cast<const sockaddr*>(&in), sizeof in);
      }
    }
  }
  return g_real_connect(fd, addr, len);
}

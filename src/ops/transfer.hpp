// Op transfer (the host link, as CUDA's bandwidthTest measures it): its axes, and the one
// code variant every backend registers over the Device's host-link calls (alloc_host,
// copy_to_device, copy_to_host, copy_peer) and the on-device copy (Buffer::copy_from).
#pragma once

#include <cstring>

#include <fmt/format.h>

#include "hetbench/code_variant.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

// bandwidthTest's three (Host to Device, Device to Host, Device to Device: a copy within
// one device's memory), both directions at once, and a copy to a second device (peer).
enum class Direction { h2d, d2h, bidir, d2d, peer };

// Choices stored as 0/1 keys (d2h, bidir, d2d, peer; pinned), so that constraints read them.
inline const Axis& transfer_direction_axis() {
  static const Axis a =
      Axis::choice("direction", {"h2d", "d2h", "bidir", "d2d", "peer"},
                   "host to device, device to host, both at once on two lanes, within the device's memory, to a "
                   "second device",
                   /*indicators=*/true);
  return a;
}
inline const Axis& transfer_memory_axis() {
  static const Axis a = Axis::choice("memory", {"pageable", "pinned"}, "host memory: malloc'd or page-locked",
                                     /*indicators=*/true);
  return a;
}

// The operands' roles: x (In) holds the seeded bytes on the device, y (Out) receives
// host-to-device copies; the host side and a peer's buffer are the Call's own, handed
// to validation as the outputs "host" and "peer".
template <class Base>
struct TransferCall : Base {
  std::size_t bytes = 0;
  Direction dir = Direction::h2d;
  std::unique_ptr<HostMemory> send, recv;
  std::shared_ptr<Device> peer_dev;
  std::unique_ptr<Buffer> peer;

  void reset() {
    if (recv) std::memset(recv->data(), 0xFF, bytes);
    if (peer) {
      peer->poison();
      peer_dev->finish();
    }
  }
  void collect(Outputs& out) {
    if (recv) {
      auto* p = static_cast<const unsigned char*>(recv->data());
      out["host"].assign(p, p + bytes);
    }
    if (peer) {
      auto& v = out["peer"];
      v.resize(bytes);
      peer->download(v.data());
      peer_dev->finish();
    }
  }
};

// Sets up the host memory (and the peer's buffer) untimed; the run is the copies alone.
// `peer_of` gives the device a d2d copy goes to.
template <class Call>
void register_transfer_variant(const std::string& name, const std::string& description,
                               std::function<std::shared_ptr<Device>(Device&)> peer_of) {
  CodeVariantInfo info{.op = "transfer", .name = name, .description = description, .library = "host link",
                       .precisions = {Precision::S}, .params = {},
                       .constraints = {"peer == 0 || peers >= 1"}};
  register_code_variant<Call>(
      std::move(info),
      [](Call& c) {
        auto& d = *c.dev;
        Buffer& x = *c.bufs->at("x");
        Buffer& y = *c.bufs->at("y");
        switch (c.dir) {
          case Direction::h2d: d.copy_to_device(y, c.send->data(), c.bytes, 0); break;
          case Direction::d2h: d.copy_to_host(c.recv->data(), x, c.bytes, 0); break;
          case Direction::bidir:  // the side lane first: it forks from the main queue
            d.copy_to_host(c.recv->data(), x, c.bytes, 1);
            d.copy_to_device(y, c.send->data(), c.bytes, 0);
            break;
          case Direction::d2d: y.copy_from(x); break;
          case Direction::peer: d.copy_peer(*c.peer, *c.peer_dev, x, c.bytes); break;
        }
      },
      [peer_of](Call& c) {
        c.bytes = static_cast<std::size_t>(c.size("bytes"));
        c.dir = transfer_direction_axis().get<Direction>(c.prob->sizes);
        const auto kind = transfer_memory_axis().get<HostMemoryKind>(c.prob->sizes);
        if (c.dir == Direction::h2d || c.dir == Direction::bidir) {
          c.send = c.dev->alloc_host(c.bytes, kind);
          std::memcpy(c.send->data(), c.prob->array("x").host.data(), c.bytes);
        }
        if (c.dir == Direction::d2h || c.dir == Direction::bidir) c.recv = c.dev->alloc_host(c.bytes, kind);
        if (c.dir == Direction::peer) {
          c.peer_dev = peer_of(*c.dev);
          if (!c.peer_dev) throw PointError(fmt::format("{}: no second device for a peer copy", c.dev->id()));
          c.peer = c.peer_dev->alloc(c.bytes);
          c.dev->finish();
        }
      });
}

}  // namespace hetbench

#!/usr/bin/python3
"""A slow link between two network namespaces, in user space: what `tc qdisc ... netem delay D
loss L` would do on a veth, for kernels built without sch_netem (this machine's). Called by
`hosts.sh slow`. Creates TAP device DEV_A in netns NS_A and DEV_B in NS_B (they vanish when this
process ends) and copies every Ethernet frame across after DELAY_MS milliseconds, dropping a
LOSS fraction of them (each way). Prints "ready" once both devices exist.

usage: slowlink.py NS_A DEV_A NS_B DEV_B DELAY_MS LOSS      (NS_*: paths like /run/netns/X)
"""
import collections
import ctypes
import fcntl
import os
import random
import select
import signal
import struct
import sys
import time

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000
libc = ctypes.CDLL(None, use_errno=True)


def tap_in(netns, name):
    """A TAP device `name` created inside `netns` (the device lives where TUNSETIFF runs)."""
    ns = os.open(netns, os.O_RDONLY)
    try:
        if libc.setns(ns, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {netns}")
    finally:
        os.close(ns)
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def main():
    ns_a, dev_a, ns_b, dev_b, delay_ms, loss = sys.argv[1:7]
    delay, loss = float(delay_ms) / 1000, float(loss)
    a, b = tap_in(ns_a, dev_a), tap_in(ns_b, dev_b)
    peer = {a: b, b: a}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    rng = random.Random(1)   # the same frames are dropped in every run with the same traffic
    queue = collections.deque()   # (due, fd, frame): the delay is constant, so FIFO is time order
    print("ready", flush=True)
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        readable, _, _ = select.select([a, b], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            while True:
                try:
                    frame = os.read(fd, 65536)
                except BlockingIOError:
                    break
                except OSError:   # the device is down: nothing to read until it is up again
                    break
                if rng.random() >= loss:
                    queue.append((now + delay, peer[fd], frame))
        while queue and queue[0][0] <= now:
            _, fd, frame = queue.popleft()
            try:
                os.write(fd, frame)
            except OSError:   # device down or its queue full: the frame is lost, as on a wire
                pass


if __name__ == "__main__":
    main()

"""``rlvr serve-rewards``: an HTTP reward server for OpenRLHF's ``--remote_rm_url``."""
from __future__ import annotations

import argparse
import ipaddress
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve-rewards",
        help="serve verifier rewards over HTTP (OpenRLHF /get_reward protocol)",
        description=(
            "POST /get_reward with JSON {query: [...], prompts: [...], labels: [task_json, ...]} returns "
            "{rewards, scores, extra_logs}; GET /health. Bound to 127.0.0.1 unless --host says otherwise; "
            "there is no authentication."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--max-body-mb", type=float, default=16.0, help="request size limit in MiB (413 above)")
    p.add_argument("--max-items", type=int, default=8192, help="samples per request limit")
    p.add_argument("--reward-mode", help="checker reward mode (e.g. em, f1, shaped); default: each family's own")
    p.set_defaults(func=run)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    from rlvr.rewards.server import RewardServer, ServerConfig

    if args.max_body_mb <= 0 or args.max_items < 1:
        raise ValueError("--max-body-mb and --max-items must be positive")
    config = ServerConfig(host=args.host, port=args.port, max_body_bytes=int(args.max_body_mb * 1024 * 1024),
                          max_items=args.max_items, reward_mode=args.reward_mode)
    if not _is_loopback(args.host):
        print(f"rlvr serve-rewards: warning: listening on {args.host} without authentication", file=sys.stderr)
    server = RewardServer(config)
    print(f"rlvr reward server on {server.url} (POST /get_reward, GET /health); Ctrl-C to stop", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0

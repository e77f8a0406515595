"""``rlvr serve-rewards``: an HTTP reward server for OpenRLHF's ``--reward.remote_url`` (0.11; ``--remote_rm_url`` before)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from rlvr.deadline import ENV_VAR as TIMEOUT_ENV_VAR
from rlvr.deadline import parse_timeout, resolve_timeout

if TYPE_CHECKING:
    from rlvr.rewards.server import ServerConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve-rewards",
        help="serve verifier rewards over HTTP (OpenRLHF /get_reward protocol)",
        description=(
            "POST /get_reward with JSON {query: [...], prompts: [...], labels: [task_json, ...]} returns "
            "{rewards, scores, extra_logs}; GET /health. Bound to 127.0.0.1 unless --host says otherwise; "
            "with --token (or $RLVR_REWARD_TOKEN) requests need `Authorization: Bearer <token>`."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=5000, help="port (0: any free port; the URL is printed)")
    p.add_argument("--workers", type=int, default=1, help="HTTP worker processes, each with a scoring process")
    p.add_argument("--token", help="shared secret required as `Authorization: Bearer <token>` (default "
                                   "$RLVR_REWARD_TOKEN, preferable: a command line shows in the process list; "
                                   "none: no authentication)")
    p.add_argument("--timeout", help=f"per-verdict deadline in seconds, 'off' for none "
                                     f"(default ${TIMEOUT_ENV_VAR} or 5); past it the sample gets reward 0")
    p.add_argument("--max-body-mb", type=float, default=16.0, help="request size limit in MiB (413 above)")
    p.add_argument("--max-items", type=int, default=8192, help="samples per request limit")
    p.add_argument("--reward-mode", help="checker reward mode (e.g. em, f1, shaped); default: each family's own")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE",
                   help="module or .py file to import in each scoring process, e.g. one registering "
                        "custom families (repeatable)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                   help="server log verbosity; debug adds the per-request access log and the tracebacks of "
                        "checker failures (otherwise one line per family and error, counted once a minute)")
    p.set_defaults(func=run)


def build_config(args: argparse.Namespace) -> "ServerConfig":
    """The :class:`ServerConfig` of the command line (``ValueError`` for a bad value)."""
    from rlvr.rewards.isolation import check_plugin, import_plugin
    from rlvr.rewards.server import TOKEN_ENV_VAR, ServerConfig

    if args.max_body_mb <= 0 or args.max_items < 1:
        raise ValueError("--max-body-mb and --max-items must be positive")
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    try:
        timeout = parse_timeout(args.timeout) if args.timeout is not None else resolve_timeout()
    except ValueError as exc:
        raise ValueError(f"--timeout: {exc}") from None
    for spec in args.plugin:
        check_plugin(spec)
        try:
            import_plugin(spec)  # fail here, in one line, rather than in every scoring process
        except Exception as exc:  # noqa: BLE001 - any error of the user's module
            raise ValueError(f"--plugin {spec}: {type(exc).__name__}: {exc}") from None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV_VAR)
    return ServerConfig(host=args.host, port=args.port, max_body_bytes=int(args.max_body_mb * 1024 * 1024),
                        max_items=args.max_items, reward_mode=args.reward_mode, token=token or None,
                        timeout=timeout, workers=args.workers,
                        imports=tuple(os.path.abspath(s) if s.endswith(".py") or os.sep in s else s for s in args.plugin),
                        log_level=args.log_level)


def exposure_warning(config: "ServerConfig") -> str | None:
    """The warning for a server reachable beyond this machine without a token (None when there is none)."""
    from rlvr.rewards.server import is_loopback

    if is_loopback(config.host) or config.token:
        return None
    return (f"listening on {config.host} without a token: anyone who can reach it can use it "
            "(set --token or $RLVR_REWARD_TOKEN)")


def run(args: argparse.Namespace) -> int:
    from rlvr.rewards.server import bind_socket, serve

    config = build_config(args)
    sock = bind_socket(config.host, config.port)
    host, port = sock.getsockname()[:2]
    deadline = "no verdict deadline" if config.timeout is None else f"verdict deadline {config.timeout:g} s"
    auth = "token required" if config.token else "no token"
    shown = f"[{host}]" if ":" in host else host
    print(f"rlvr reward server on http://{shown}:{port} (POST /get_reward, GET /health; {config.workers} "
          f"worker{'s' if config.workers > 1 else ''}, {deadline}, {auth}); Ctrl-C to stop", file=sys.stderr, flush=True)
    warning = exposure_warning(config)
    if warning:
        print(f"rlvr serve-rewards: warning: {warning}", file=sys.stderr, flush=True)
    try:
        serve(config, sock)
    except RuntimeError as exc:
        print(f"rlvr serve-rewards: error: {exc}", file=sys.stderr)
        return 1
    return 0

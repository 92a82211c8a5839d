"""Sub-commands of ``python -m fsengine``: each module has ``add_parser(subparsers)`` and
``run(args) -> int``."""

#: modules listed here become sub-commands, in this order
COMMAND_MODULES = ("fsengine.commands.app", "fsengine.commands.select", "fsengine.commands.compare",
                   "fsengine.commands.benchmark",
                   "fsengine.commands.reproduce", "fsengine.commands.datasets", "fsengine.commands.notebooks",
                   "fsengine.commands.lecture", "fsengine.commands.warmup")

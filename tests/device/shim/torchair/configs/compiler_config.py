"""CompilerConfig of the torchair stand-in: the fields 004's example and
fiacheck's script set."""


class _Section:
    pass


class CompilerConfig:
    def __init__(self):
        self.mode = "max-autotune"
        self.debug = _Section()
        self.debug.graph_dump = _Section()
        self.experimental_config = _Section()
        self.experimental_config.tiling_schedule_optimize = False

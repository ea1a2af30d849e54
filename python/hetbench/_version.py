# hetbench's version, in one place: CMakeLists.txt reads it for the program
# (HETBENCH_VERSION, recorded in every experiment.json) and pyproject.toml for this
# package, so that the reader and the program that wrote the records say the same.
__version__ = "0.1.0"

// Must not compile: the engine reaches backends only through the registries.
#include "backends/host/host_backend.hpp"

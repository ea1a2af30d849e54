// Must compile: the engine may use the layers below the backends.
#include "util/cache.hpp"

// Must not compile: device characterisation (ceilings, the device report) is a layer above
// the engine; the engine reaches the report only through the source it registers.
#include "characterize/device_report.hpp"

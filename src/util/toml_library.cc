// toml++'s compiled part, built once here (TOML_HEADER_ONLY=0 everywhere else, cuco_settings).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>

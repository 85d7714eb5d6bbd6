#include <kleene/kleene.hpp>
#include <fmt/core.h>
int main() { fmt::print("kleene {}\n", kleene::version()); }

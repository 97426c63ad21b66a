#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  return tessel::cli::run(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}

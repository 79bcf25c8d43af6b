//===- MakeTestPlan.cpp - Text plans to plan.pb for the lit tests ---------===//
//
// oneflow-make-test-plan IN.txtpb OUT.pb
//
// Converts a plan in protobuf text format into the binary plan.pb that
// oneflow-run reads, so that lit tests can spell real plans inline.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/plan.pb.h"

#include <google/protobuf/text_format.h>

#include <iostream>

using namespace oneflow;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: oneflow-make-test-plan IN.txtpb OUT.pb\n";
    return 1;
  }
  runtime::Expected<std::string> text = runtime::readFile(argv[1]);
  if (!text.ok()) {
    std::cerr << "error: " << text.error().message() << "\n";
    return 1;
  }
  plan::Plan plan;
  if (!google::protobuf::TextFormat::ParseFromString(*text, &plan)) {
    std::cerr << "error: '" << argv[1] << "' is not a text-format plan\n";
    return 1;
  }
  runtime::Status status =
      runtime::writeFileAtomic(argv[2], plan.SerializeAsString());
  if (!status.ok()) {
    std::cerr << "error: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

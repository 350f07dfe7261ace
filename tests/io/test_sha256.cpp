// SHA-256 against FIPS 180-4's published examples, in memory and from a file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "io/sha256.hpp"

namespace trident::io {
namespace {

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256_of_text(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_of_text("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_of_text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_of_text(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, AFileAsItsBytes) {
  const std::string path = testing::TempDir() + "trident_sha256.bin";
  std::string bytes;
  for (int i = 0; i < 3 * (1 << 20) + 17; ++i) bytes += static_cast<char>((i * 7919) & 0xff);  // past the read buffer
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(sha256_of_file(path), sha256_of_text(bytes));
  std::remove(path.c_str());
  EXPECT_THROW(sha256_of_file(path), RunError);
}

}  // namespace
}  // namespace trident::io

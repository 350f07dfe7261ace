// An output dropped without commit() or discard() on one rank (a study that throws between
// creating its file and committing it): the destructor removes FILE.partial and leaves no FILE.
#include <gtest/gtest.h>

#include "io/output_file.hpp"
#include "support/test_support.hpp"

namespace trident::io {
namespace {

TEST(OutputFileAbandoned, TheDestructorRemovesThePartialFile) {
  const MPI_Comm comm = MPI_COMM_SELF;
  const std::string folder = test::scratch_folder(comm, "io_abandoned");
  for (const Mode mode : {Mode::automatic, Mode::gathered}) {
    const std::string path = folder + (mode == Mode::automatic ? "/automatic.h5" : "/gathered.h5");
    {
      OutputFile file(comm, path, false, mode);
      file.create_dataset<double>("/x", {3});
      const double values[] = {1, 2, 3};
      file.write_slab<double>("/x", {0}, {3}, values);
      EXPECT_TRUE(test::file_exists(path + ".partial"));
    }
    EXPECT_FALSE(test::file_exists(path + ".partial")) << path;
    EXPECT_FALSE(test::file_exists(path)) << path;
  }
}

}  // namespace
}  // namespace trident::io

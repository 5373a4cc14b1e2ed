// The typed errors of the store layer. Thrown by ResultWriter/ResultReader/Journal; `main` maps
// each to a documented exit code (docs/contract.md). Every message starts with the operation and
// the file ("store::open: not an nqueens result file: out.h5").
#pragma once
#include <stdexcept>

namespace nq::store {

// Base of every failure that comes from the files themselves (not from a caller's bug: those
// are std::invalid_argument / std::logic_error).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Exit 3: missing, unreadable, foreign, truncated or damaged result file.
class NotAResultFile : public StoreError {
 public:
  using StoreError::StoreError;
};
// A result file that another program holds open for writing (its HDF5 file lock): not damaged,
// busy. `info` says so (exit 3); `run` refuses to touch it (exit 5) rather than advising to move it.
class ResultFileInUse : public NotAResultFile {
 public:
  using NotAResultFile::NotAResultFile;
};
// Exit 3: a journal with a bad record in the middle, or a file that is not a journal at all.
class CorruptJournal : public StoreError {
 public:
  using StoreError::StoreError;
};
// Exit 4: cannot create or write an output (disk full, file too large, permission, path is a
// directory, missing directory, I/O error).
class WriteError : public StoreError {
 public:
  using StoreError::StoreError;
};
// Exit 5: a journal written for other job parameters; the message names every differing field
// with both values.
class ParameterMismatch : public StoreError {
 public:
  using StoreError::StoreError;
};

// Exit 5: another process holds the journal (another run of the same job writing the same file).
class JournalInUse : public StoreError {
 public:
  using StoreError::StoreError;
};

}  // namespace nq::store

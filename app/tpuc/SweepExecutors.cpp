//===- SweepExecutors.cpp - A local process pool and a Slurm job array ----===//

#include "SweepExecutors.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace tpuc::cli {

namespace fs = std::filesystem;

namespace {

/// The arguments of `tpuc` that run cell `index` (rendered by sweep's own flag binding).
std::vector<std::string> cellArgs(const driver::SweepManifest &manifest, const std::string &outDir,
                                  int64_t index) {
  driver::SweepOptions cell;
  cell.manifest = manifest.path;
  cell.out = outDir;
  cell.cell = index;
  return driver::commandLine(cell).args;
}

/// `--jobs N` cells at once, each a child `tpuc sweep --cell K`.
class LocalExecutor : public SweepExecutor {
public:
  LocalExecutor(const driver::SweepManifest &manifest, std::string outDir, int64_t jobs)
      : m_manifest(manifest), m_out(std::move(outDir)),
        m_jobs(jobs > 0 ? jobs : std::max<int64_t>(1, std::thread::hardware_concurrency())) {}

  std::string launch(const std::vector<int64_t> &indices) override {
    size_t next = 0, done = 0;
    std::mutex mutex;
    auto worker = [&] {
      for (;;) {
        int64_t index;
        {
          std::lock_guard lock(mutex);
          if (next == indices.size())
            return;
          index = indices[next++];
        }
        ChildRun run = runChild(selfProgram(), cellArgs(m_manifest, m_out, index));
        std::lock_guard lock(mutex);
        ++done;
        m_endings[index] = run.exitCode < 0 ? run.error
                                            : "exit code " + std::to_string(run.exitCode) + ": " +
                                                  lastOutputLine(run.output);
        std::cout << "[" << done << "/" << indices.size() << "] " << lastOutputLine(run.output) << std::endl;
      }
    };
    std::vector<std::thread> threads;
    for (int64_t i = 0; i < std::min<int64_t>(m_jobs, static_cast<int64_t>(indices.size())); ++i)
      threads.emplace_back(worker);
    for (std::thread &t : threads)
      t.join();
    return "";
  }

  std::string whyNoRecord(int64_t index) const override {
    auto it = m_endings.find(index);
    return "the cell left no record (" + (it == m_endings.end() ? std::string("not launched") : it->second) +
           ")";
  }

private:
  const driver::SweepManifest &m_manifest;
  std::string m_out;
  int64_t m_jobs;
  std::map<int64_t, std::string> m_endings;
};

/// A program on PATH, "" when none.
std::string findProgram(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return "";
}

/// "0-3,5,7-8": sbatch's --array list of `indices` (sorted).
std::string arrayList(std::vector<int64_t> indices) {
  std::sort(indices.begin(), indices.end());
  std::string list;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1)
      ++j;
    list += (list.empty() ? "" : ",") + std::to_string(indices[i]) +
            (j > i ? "-" + std::to_string(indices[j]) : std::string());
    i = j + 1;
  }
  return list;
}

std::string shellQuote(const std::string &word) {
  std::string quoted = "'";
  for (char c : word)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// One `sbatch --array` job array per launch, waited for by polling squeue. The batch script
/// only execs `tpuc sweep MANIFEST --cell $SLURM_ARRAY_TASK_ID --out DIR`, so the sweep folder and tpuc
/// must be reachable at the same paths on the nodes (a shared file system).
class SlurmExecutor : public SweepExecutor {
public:
  SlurmExecutor(const driver::SweepOptions &o, const driver::SweepManifest &manifest, std::string outDir)
      : m_manifest(manifest), m_out(std::move(outDir)) {
    m_tpuc = o.tpuc.empty() ? selfProgram() : o.tpuc;
    m_partition = o.partition.empty() ? manifest.slurm.partition : o.partition;
    m_cpus = o.cpusPerTask > 0 ? o.cpusPerTask : manifest.slurm.cpusPerTask;
    m_mem = o.mem.empty() ? manifest.slurm.mem : o.mem;
    m_time = o.time.empty() ? manifest.slurm.time : o.time;
  }

  std::string launch(const std::vector<int64_t> &indices) override {
    const std::string sbatch = findProgram("sbatch");
    if (sbatch.empty())
      return "--executor slurm: sbatch is not on PATH (install slurm-client, or use --executor local)";
    const std::string dir = m_out + "/slurm";
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string script = dir + "/cell.sbatch";
    {
      // The task's whole job: exec tpuc on its cell (argv rendered by sweep's flag binding, quoted once).
      std::vector<std::string> args = cellArgs(m_manifest, m_out, 0);
      std::string line = "exec " + shellQuote(m_tpuc);
      for (size_t i = 0; i < args.size(); ++i)
        line += " " + (i > 0 && args[i - 1] == "--cell" ? std::string("\"$SLURM_ARRAY_TASK_ID\"")
                                                        : shellQuote(args[i]));
      std::ofstream out(script, std::ios::binary | std::ios::trunc);
      out << "#!/bin/sh\n# Written by tpuc sweep: each task of the array runs one cell.\n" << line << "\n";
      if (!out.flush())
        return script + ": cannot write";
    }
    ::chmod(script.c_str(), 0755);
    std::vector<std::string> args{"--parsable", "--array=" + arrayList(indices),
                                  "--job-name=tpuc-sweep-" + m_manifest.name,
                                  "--output=" + dir + "/cell-%a.log", "--chdir=" + m_out};
    if (!m_partition.empty())
      args.push_back("--partition=" + m_partition);
    args.push_back("--cpus-per-task=" + std::to_string(m_cpus > 0 ? m_cpus : 1));
    if (!m_mem.empty())
      args.push_back("--mem=" + m_mem);
    if (!m_time.empty())
      args.push_back("--time=" + m_time);
    args.push_back(script);
    ChildRun run = runChild(sbatch, args);
    // --parsable prints "jobid[;cluster]" on submission.
    std::string first = run.output.substr(0, run.output.find('\n'));
    m_job = first.substr(0, first.find(';'));
    if (run.exitCode != 0 || m_job.empty() || m_job.find_first_not_of("0123456789") != std::string::npos)
      return "sbatch failed (" +
             (run.exitCode < 0 ? run.error : "exit code " + std::to_string(run.exitCode)) +
             "): " + lastOutputLine(run.output);
    std::cout << "tpuc sweep: sbatch --array=" << arrayList(indices) << " (" << indices.size()
              << " tasks): job array " << m_job << ", waiting for it" << std::endl;
    if (std::string error = waitForJob(); !error.empty())
      return error;
    std::cout << "tpuc sweep: job array " << m_job << " ended" << std::endl;
    return "";
  }

  /// Polls squeue until the array has left it (pending, running and completing tasks are listed; ended
  /// ones are not). sbatch --wait would do the same, but backs off to 10 s between polls.
  std::string waitForJob() {
    const std::string squeue = findProgram("squeue");
    if (squeue.empty())
      return "--executor slurm: squeue is not on PATH";
    int failures = 0;
    std::string lastState;
    for (;;) {
      ChildRun run = runChild(squeue, {"-h", "-r", "-j", m_job, "-o", "%T"});
      if (run.exitCode == 0) {
        failures = 0;
        if (run.output.find_first_not_of(" \n") == std::string::npos)
          return "";
        int64_t running = 0, pending = 0;
        std::istringstream lines(run.output);
        for (std::string state; std::getline(lines, state);)
          (state == "PENDING" ? pending : running) += 1;
        std::string now = std::to_string(running) + " running, " + std::to_string(pending) + " pending";
        if (now != lastState)
          std::cout << "tpuc sweep: job array " << m_job << ": " << now << std::endl;
        lastState = now;
      } else if (run.output.find("Invalid job id") != std::string::npos) {
        return ""; // purged from the controller: long ended
      } else if (++failures == 30) {
        return "squeue -j " + m_job + " failed 30 times in a row: " + lastOutputLine(run.output);
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }

  std::string whyNoRecord(int64_t index) const override {
    const std::string log = m_out + "/slurm/cell-" + std::to_string(index) + ".log";
    std::ifstream in(log, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string last = lastOutputLine(text.str());
    return "the task left no record (job " + m_job + ", " + log + ": " + (last.empty() ? "empty" : last) +
           ")";
  }

private:
  const driver::SweepManifest &m_manifest;
  std::string m_out, m_tpuc, m_partition, m_mem, m_time, m_job;
  int64_t m_cpus = 0;
};

} // namespace

std::unique_ptr<SweepExecutor> makeExecutor(const driver::SweepOptions &o,
                                            const driver::SweepManifest &manifest,
                                            const std::string &outDir) {
  if (o.executor == "slurm")
    return std::make_unique<SlurmExecutor>(o, manifest, outDir);
  return std::make_unique<LocalExecutor>(manifest, outDir, o.jobs);
}

} // namespace tpuc::cli

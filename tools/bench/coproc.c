/* tools/bench/coproc.c — co-processes: a program started on pipes and spoken to a line at a
   time (the measuring children, the Python peer). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Starts argv (argv[0] searched in PATH when @p search). A program that cannot be started
   exits 127 at once; coproc_end() tells. Returns -1 (errno set) when no process could be made. */
int coproc_start(coproc *c, char *const argv[], bool search) {
  int in[2], out[2];
  memset(c, 0, sizeof *c);
  /* Close-on-exec, so that later children do not hold this one's pipes open. */
  if (pipe2(in, O_CLOEXEC) != 0)
    return -1;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  fflush(stdout); /* nothing buffered may reach the child's copy of stdout */
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    signal(SIGPIPE, SIG_DFL); /* ignored here, and an ignored signal stays ignored across exec */
    if (search)
      execvp(argv[0], argv);
    else
      execv(argv[0], argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  c->pid = pid;
  c->to = fdopen(in[1], "w");
  c->from = fdopen(out[0], "r");
  if (c->to == NULL || c->from == NULL) {
    if (c->to == NULL)
      close(in[1]);
    if (c->from == NULL)
      close(out[0]);
    return -1; /* coproc_end() still reaps it */
  }
  return 0;
}

/* The next line it writes, without its newline; NULL at its end. */
char *coproc_read(coproc *c, char *line, size_t size) {
  if (c->from == NULL || fgets(line, (int)size, c->from) == NULL)
    return NULL;
  line[strcspn(line, "\n")] = '\0';
  return line;
}

/* Sends one line; -1 when it has gone. */
static int coproc_send(coproc *c, const char *line) {
  if (c->to == NULL || fprintf(c->to, "%s\n", line) < 0 || fflush(c->to) != 0)
    return -1;
  return 0;
}

/* Sends @p cmd and reads the line it answers; NULL when it has gone. */
char *coproc_ask(coproc *c, const char *cmd, char *line, size_t size) {
  return coproc_send(c, cmd) == 0 ? coproc_read(c, line, size) : NULL;
}

/* Closes its pipes and waits for it. Returns its exit status: 127 when it could not be
   started, -1 when a signal ended it. */
int coproc_end(coproc *c) {
  if (c->to)
    fclose(c->to);
  if (c->from)
    fclose(c->from);
  c->to = c->from = NULL;
  if (c->pid <= 0)
    return -1;
  int status;
  while (waitpid(c->pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  c->pid = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

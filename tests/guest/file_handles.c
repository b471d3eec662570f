/* file_handles.c: name_to_handle_at and open_by_handle_at, printed so that a native run
 * and one under x64emu can be compared. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *what, long r) {
  if (r < 0) printf("%-40s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-40s %ld\n", what, r);
}

/* A handle's size is asked with no room (EOVERFLOW), then the handle taken and opened (as
 * root; EPERM for a user); a room past MAX_HANDLE_SZ is EINVAL, a bad handle EFAULT
 * once the path is found. The handle's bytes are the filesystem's: only compared. */
int main(void) {
  struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ), *again = malloc(sizeof *h + MAX_HANDLE_SZ);
  int mount_id, mount_again;
  h->handle_bytes = 0;
  show("name_to_handle_at, no room", name_to_handle_at(AT_FDCWD, "/etc/passwd", h, &mount_id, 0));
  printf("  the size it needs is not 0: %d\n", h->handle_bytes != 0);
  show("name_to_handle_at", name_to_handle_at(AT_FDCWD, "/etc/passwd", h, &mount_id, 0));
  again->handle_bytes = MAX_HANDLE_SZ;
  name_to_handle_at(AT_FDCWD, "/etc/passwd", again, &mount_again, 0);
  printf("  the same handle twice: %d\n", h->handle_bytes == again->handle_bytes &&
                                             h->handle_type == again->handle_type &&
                                             !memcmp(h->f_handle, again->f_handle, h->handle_bytes) &&
                                             mount_id == mount_again);
  again->handle_bytes = MAX_HANDLE_SZ + 1;
  show("name_to_handle_at, too much room", name_to_handle_at(AT_FDCWD, "/etc/passwd", again, &mount_id, 0));
  show("name_to_handle_at, missing, bad handle",
       name_to_handle_at(AT_FDCWD, "/no/such/file", (void *)16, &mount_id, 0));
  show("name_to_handle_at, bad handle", name_to_handle_at(AT_FDCWD, "/etc/passwd", (void *)16, &mount_id, 0));
  int fd = open_by_handle_at(AT_FDCWD, h, O_RDONLY | O_CLOEXEC);
  show("open_by_handle_at", fd >= 0 ? 0 : -1);
  if (fd >= 0) {
    char first[5] = {0};
    printf("  it reads /etc/passwd: %d, close-on-exec %d\n",
           read(fd, first, 4) == 4 && !strcmp(first, "root"), (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    close(fd);
  }
  free(h);
  free(again);
  return 0;
}

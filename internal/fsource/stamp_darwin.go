package fsource

import "syscall"

// statusChange is the file's status-change time; Darwin names it Ctimespec.
func statusChange(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }

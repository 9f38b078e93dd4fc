package fsource

import "syscall"

// statusChange is the file's status-change time; Linux names it Ctim.
func statusChange(st *syscall.Stat_t) syscall.Timespec { return st.Ctim }

/*
 * edonio: the memory a cgroup lets this process use, as the caches' bound (doc/hints.md, the
 * node's memory). Self-contained (no MPI, no ROMIO), so that test/unit can try it on a tree of its
 * own.
 */
#ifndef AD_EDONIO_MEMLIMIT_H_INCLUDED
#define AD_EDONIO_MEMLIMIT_H_INCLUDED

/*
 * The lowest memory limit, in bytes, set on the cgroup of this process or on any of its ancestors:
 * cgroup v2 (memory.max under v2_root) and the v1 memory controller (memory.limit_in_bytes under
 * v1_root) alike, their paths read from self_cgroup (/proc/self/cgroup). Each path is walked from
 * the process's cgroup up to the root of the mount, so that the limit a batch system sets on a
 * job holds for the processes of its steps and tasks below it, and a container whose own cgroup
 * is mounted at the root finds it there. 0 when no limit is set or none can be read.
 */
long long edonio_cgroup_limit(const char *self_cgroup, const char *v2_root, const char *v1_root);

#endif /* AD_EDONIO_MEMLIMIT_H_INCLUDED */

package launch

import "fmt"

// openMPI reads the variables Open MPI's mpirun sets for each rank. It
// does not say where rank 0 runs: on one host it is this one; across
// hosts --launch-root or TSYS_ROOT names it (Detect).
func openMPI(env lookup) (*Launch, error) {
	rank, size, err := env.rankSize("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun sets it for each rank")
	if err != nil {
		return nil, err
	}
	local, _ := env.get("OMPI_COMM_WORLD_LOCAL_SIZE")
	job, _ := env.first("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid")
	return mpiLaunch("Open MPI", rank, size, local, job), nil
}

// pmi reads the variables of a PMI launcher: MPICH's (Hydra) mpiexec.
func pmi(env lookup) (*Launch, error) {
	rank, size, err := env.rankSize("PMI_RANK", "PMI_SIZE", "MPICH's mpiexec sets it for each rank")
	if err != nil {
		return nil, err
	}
	local, _ := env.get("MPI_LOCALNRANKS")
	job, _ := env.first("PMI_JOBID", "PMI_KVSNAME")
	return mpiLaunch("MPICH (PMI)", rank, size, local, job), nil
}

// mpiLaunch is an MPI launcher's Launch: every rank on this host when
// the ranks on it (local) are all of them.
func mpiLaunch(name string, rank, size int, local, job string) *Launch {
	l := &Launch{Launcher: name, Rank: rank, Size: size, OneHost: local == fmt.Sprint(size)}
	l.Job = "mpi " + job
	l.RootPort = Port(hashJob(l.Job), 1)
	return l
}

// Package launch reads what a launcher tells the processes it starts, so
// that a tsys program started as one process a rank by SLURM (srun),
// mpirun (Open MPI, MPICH), a Kubernetes Indexed Job or anything that
// sets TSYS_RANK and TSYS_SIZE makes one cluster with no address typed:
// this process's rank and the job's size, where rank 0 listens (its host
// from the launcher, its port derived from the job), the workers the
// launcher gave this rank, and the identity of the job, from which the
// cluster key is derived (Key). It is pure: Detect reads the variables it
// is handed and returns a Launch or an error that says what to set; the
// process-facing part (binding, joining, exiting with the job's status)
// is package cli's.
package launch

package launch

import "fmt"

// kubernetesPort is rank 0's gossip port in a Kubernetes Job: each pod
// has an address of its own, so no other job can hold it, and the
// manifest declares it.
const kubernetesPort = 7946

// kubernetes reads an Indexed Job's variables: Kubernetes sets
// JOB_COMPLETION_INDEX in each pod, and the manifest sets TSYS_SIZE (the
// Job's completions) and TSYS_ROOT (pod 0's stable name behind the
// Job's headless Service, JOB-0.SERVICE), which Kubernetes does not
// give a pod.
func kubernetes(env lookup) (*Launch, error) {
	why := "an Indexed Job's manifest sets it beside completions: env TSYS_SIZE (the completions) and TSYS_ROOT (JOB-0.SERVICE), as deploy/kubernetes/indexed-job-uts.yaml does"
	rank, size, err := env.rankSize("JOB_COMPLETION_INDEX", "TSYS_SIZE", why)
	if err != nil {
		return nil, err
	}
	if !env.has("TSYS_ROOT") && size > 1 {
		return nil, fmt.Errorf("TSYS_ROOT is not set: %s", why)
	}
	host, _ := env.get("HOSTNAME")
	return &Launch{Launcher: "Kubernetes", Rank: rank, Size: size, RootPort: kubernetesPort,
		Job: "kubernetes " + host, NeedsKeyFile: "pods share no home directory, where the key would be derived from: mount a Secret and give --key-file (deploy/kubernetes/indexed-job-uts.yaml)"}, nil
}

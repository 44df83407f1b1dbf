package advise

import "strings"

// setsOption: the --sched value spec sets option key.
func setsOption(spec, key string) bool {
	_, options, _ := strings.Cut(spec, ":")
	for _, o := range strings.Split(options, ",") {
		if strings.HasPrefix(o, key+"=") {
			return true
		}
	}
	return false
}

// withOption adds option (KEY=VALUE) to the --sched value spec.
func withOption(spec, option string) string {
	if strings.Contains(spec, ":") {
		return spec + "," + option
	}
	return spec + ":" + option
}

package runner

// v2Writable returns "" when run cgroups can be created in the cgroup2
// hierarchy (even without controllers: enough to track and kill), else why not.
func v2Writable() string {
	g, err := setupV2(Limits{}, runName())
	if err != nil {
		return err.Error()
	}
	g.remove()
	return ""
}

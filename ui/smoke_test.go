package ui

import "github.com/flowdeck/flowdeck/config"

func zeroConfig() config.Config { return config.Config{} }

func darkConfig() config.Config {
	c := config.Default()
	c.Theme = "dark"
	return c
}

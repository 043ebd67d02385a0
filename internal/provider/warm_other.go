//go:build !unix

package provider

import "net"

const canCheckAlive = false

func alive(net.Conn) bool { return false }

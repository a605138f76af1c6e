// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title SanctionsOracle
/// @notice The devnet's look-alike of the Chainalysis sanctions oracle: the same `isSanctioned(address)` read and the
///         same owner-only list updates (`addToSanctionsList`, `removeFromSanctionsList`), written by us.
contract SanctionsOracle {
    /// @notice The account allowed to change the list: the deployer.
    address public immutable owner;

    mapping(address => bool) private _sanctioned;

    /// @notice An address was added to the list.
    event SanctionedAddressesAdded(address[] addrs);
    /// @notice An address was removed from the list.
    event SanctionedAddressesRemoved(address[] addrs);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Adds `addrs` to the list; only the owner may call it.
    function addToSanctionsList(address[] calldata addrs) external {
        require(msg.sender == owner, "SanctionsOracle: caller is not the owner");
        for (uint256 i = 0; i < addrs.length; i++) _sanctioned[addrs[i]] = true;
        emit SanctionedAddressesAdded(addrs);
    }

    /// @notice Removes `addrs` from the list; only the owner may call it.
    function removeFromSanctionsList(address[] calldata addrs) external {
        require(msg.sender == owner, "SanctionsOracle: caller is not the owner");
        for (uint256 i = 0; i < addrs.length; i++) _sanctioned[addrs[i]] = false;
        emit SanctionedAddressesRemoved(addrs);
    }

    /// @notice Whether `addr` is on the list.
    function isSanctioned(address addr) external view returns (bool) {
        return _sanctioned[addr];
    }
}

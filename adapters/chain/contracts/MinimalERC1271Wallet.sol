// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title MinimalERC1271Wallet
/// @notice The smallest smart-wallet signer: ERC-1271 `isValidSignature` accepts a 65-byte ECDSA signature of the
///         digest by its owner. Tests deploy it as a channel's payer authorizer, whose vouchers the gateway must check
///         through the chain rather than by recovering an address.
contract MinimalERC1271Wallet {
    /// @notice The key whose signatures this wallet accepts.
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice ERC-1271: `0x1626ba7e` when `signature` is the owner's over `digest`, `0xffffffff` otherwise.
    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address signer = ecrecover(digest, v, r, s);
        return signer != address(0) && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

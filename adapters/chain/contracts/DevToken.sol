// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevToken
/// @notice A plain ERC-20 for the devnet with the name, symbol and decimals given at deployment: the look-alikes of
///         USDT, EURC, DAI and WETH that batch payments accept on Base. Only the deployer mints.
/// @dev Revert strings follow OpenZeppelin's ERC-20 v4 like DevUSDC's. An infinite allowance is never decremented.
contract DevToken {
    /// @notice ERC-20 token name.
    string public name;
    /// @notice ERC-20 token symbol.
    string public symbol;
    /// @notice Decimal places of an amount.
    uint8 public immutable decimals;
    /// @notice The account allowed to mint: the deployer.
    address public immutable owner;
    /// @notice Total supply in base units.
    uint256 public totalSupply;

    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;

    /// @notice ERC-20 transfer, also emitted by mint with `from` = 0.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20 approval.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
    }

    /// @notice Balance of `account` in base units.
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @notice Remaining amount `spender` may move from `holder`, in base units.
    function allowance(address holder, address spender) external view returns (uint256) {
        return _allowances[holder][spender];
    }

    /// @notice Moves `value` from the caller to `to`.
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Lets `spender` move up to `value` of the caller's tokens.
    function approve(address spender, uint256 value) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves `value` from `from` to `to` against the caller's allowance.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        require(value <= allowed, "ERC20: insufficient allowance");
        if (allowed != type(uint256).max) _allowances[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    /// @notice Creates `amount` base units for `to`; only the owner (the deployer) may call it.
    function mint(address to, uint256 amount) external returns (bool) {
        require(msg.sender == owner, "DevToken: caller is not the owner");
        require(to != address(0), "ERC20: mint to the zero address");
        totalSupply += amount;
        _balances[to] += amount;
        emit Transfer(address(0), to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = _balances[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = balance - value;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }
}
